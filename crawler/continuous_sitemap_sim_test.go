package crawler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestSitemapScheduleSim compares, for sitemaps that change as Poisson
// processes, when a continuous crawl reads them again: by their own
// history (nextSitemapSchedule), every --min-interval, or with the host's
// pages (here pages that never change: every --max-interval). It prints
// reads a day and the mean delay from a change to the read that sees it.
// Opt-in: WEBTABLE_SITEMAP_SIM=1 go test -run TestSitemapScheduleSim -v ./crawler
func TestSitemapScheduleSim(t *testing.T) {
	if os.Getenv("WEBTABLE_SITEMAP_SIM") == "" {
		t.Skip("WEBTABLE_SITEMAP_SIM=1 runs it (a measurement, not a test)")
	}
	const lo, hi, days = time.Hour, 720 * time.Hour, 90
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	end := t0.Add(days * 24 * time.Hour)
	policies := []struct {
		name string
		next func(sc *crawlstore.SitemapSchedule, changed bool, now time.Time) time.Time
	}{
		{"own history", func(sc *crawlstore.SitemapSchedule, changed bool, now time.Time) time.Time {
			sha := sc.SHA256
			if changed || sha == "" {
				sha = fmt.Sprint(now.UnixNano())
			}
			*sc = nextSitemapSchedule(*sc, sitemapRead{ok: true, sha256: sha}, now, lo, hi)
			return sc.Due
		}},
		{"every --min-interval", func(_ *crawlstore.SitemapSchedule, _ bool, now time.Time) time.Time { return now.Add(lo) }},
		{"with unchanging pages", func(_ *crawlstore.SitemapSchedule, _ bool, now time.Time) time.Time { return now.Add(hi) }},
	}
	for _, perDay := range []float64{0, 0.1, 1, 10, 100} {
		for _, p := range policies {
			var reads, changes int
			var delay float64 // hours
			for seed := range 20 {
				rng := rand.New(rand.NewPCG(uint64(seed), 1))
				var pending []time.Time // changes not yet seen
				nextChange := end
				if perDay > 0 {
					nextChange = t0.Add(time.Duration(rng.ExpFloat64() / perDay * 24 * float64(time.Hour)))
				}
				var sc crawlstore.SitemapSchedule
				for now := t0; now.Before(end); {
					for !nextChange.After(now) {
						pending = append(pending, nextChange)
						nextChange = nextChange.Add(time.Duration(rng.ExpFloat64() / perDay * 24 * float64(time.Hour)))
					}
					for _, c := range pending {
						delay += now.Sub(c).Hours()
					}
					changes += len(pending)
					reads++
					now = p.next(&sc, len(pending) > 0, now)
					pending = pending[:0]
				}
			}
			mean := math.NaN()
			if changes > 0 {
				mean = delay / float64(changes)
			}
			t.Logf("%6g changes/day  %-22s %8.2f reads/day  mean delay %8.2f h", perDay, p.name, float64(reads)/20/days, mean)
		}
	}
}
