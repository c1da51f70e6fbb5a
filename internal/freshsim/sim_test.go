package freshsim

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
)

// policies are the recrawl policies compared, for a web of pages pages
// and a budget of fetches a day; probe is crawler.Policy's Probe.
func policies(w Web, budget int, probe float64) map[string]Scheduler {
	pages := len(w.Rates)
	start := time.Duration(pages) * 24 * time.Hour / time.Duration(budget)
	perSecond := float64(budget) / 86400
	return map[string]Scheduler{
		"uniform": &Uniform{Interval: start},
		"nutch":   &Nutch{Start: start},
		"rate": &ByChangeRate{Start: start, Budget: perSecond, MinVisits: 2, Probe: probe,
			Min: crawler.DefaultMinInterval, Max: crawler.DefaultMaxInterval},
		"no probe": &ByChangeRate{Start: start, Budget: perSecond, MinVisits: 2,
			Min: crawler.DefaultMinInterval, Max: crawler.DefaultMaxInterval},
		"oracle": &ByChangeRate{Start: start, Budget: perSecond, Oracle: w.Rates,
			Min: crawler.DefaultMinInterval, Max: crawler.DefaultMaxInterval},
	}
}

// compare runs every policy on a web of pages pages (a share never of them
// never changing, the others from one change in 10 days to 100 a day:
// three orders of magnitude) with a budget of 15% of the pages a day,
// lastModified of the pages sending Last-Modified. seed makes the web and
// its changes.
func compare(t *testing.T, never float64, pages, days, warmup int, lastModified, probe float64, seed uint64) map[string]Result {
	w := Generate(seed, pages, never, 0.1, 100)
	budget := pages * 15 / 100
	cfg := Config{Budget: budget, Days: days, Warmup: warmup, Seed: seed + 6, LastModified: lastModified}
	got := map[string]Result{}
	for name, s := range policies(w, budget, probe) {
		got[name] = Run(w, s, cfg)
		if limit := budget * (days - warmup); got[name].Fetches > limit {
			t.Errorf("%s made %d fetches, over the budget of %d", name, got[name].Fetches, limit)
		}
	}
	return got
}

// names are the policies in the order they are reported.
var names = []string{"uniform", "nutch", "rate", "no probe", "oracle"}

func logResults(t *testing.T, label string, got map[string]Result) {
	t.Helper()
	for _, name := range names {
		r := got[name]
		t.Logf("%s %-8s freshness %.4f (%.2fx uniform), %d fetches", label, name, r.Freshness, r.Freshness/got["uniform"].Freshness, r.Fetches)
	}
}

// TestFreshness: on a small simulated web, the crawl's policy keeps pages
// fresher than uniform revisits and than Nutch's: by 14% when 70% of the
// pages send Last-Modified and pages without it are probed (1.16x
// measured; 1.12x without the probe, 1.02x without the dates), by any
// margin when none does and none is probed (on 40 days the probe does not
// pay: 1.00x); with the true rates (the oracle) at least 1.15 times as
// fresh as uniform revisits. On the web where only 10% of the pages never
// change, over 60 days, by 18% with 70% dated (1.197x to 1.221x measured
// over six seeds; the 10,000-page benchmark's 1.2x goal).
func TestFreshness(t *testing.T) {
	for _, tc := range []struct {
		never                       float64
		days, warmup                int
		lastModified, probe, margin float64
	}{{0.2, 40, 15, 0.7, 0.1, 1.14}, {0.2, 40, 15, 0, 0, 1}, {0.1, 60, 30, 0.7, 0.1, 1.18}} {
		// NB: in parallel, so that the test takes the time of the
		// longest case on two cores.
		t.Run(fmt.Sprintf("never %.0f%% Last-Modified %.0f%%", tc.never*100, tc.lastModified*100), func(t *testing.T) {
			t.Parallel()
			got := compare(t, tc.never, 2000, tc.days, tc.warmup, tc.lastModified, tc.probe, 1)
			logResults(t, fmt.Sprintf("Last-Modified %.0f%%:", tc.lastModified*100), got)
			checkOrder(t, got, tc.margin, 1.15)
		})
	}
}

// TestFreshnessBenchmark is the benchmark of issue 35, 10,000 pages for 90
// simulated days (30 of warm-up), on two webs (20% and 10% of the pages
// never changing), for five seeds and four shares of pages sending
// Last-Modified, probing pages without it (Probe 0.1), the median of each
// policy's freshness reported (the ratio is of medians); about two minutes
// of CPU: WEBTABLE_FRESHNESS=1 go test -run TestFreshnessBenchmark -v
// ./internal/freshsim. It fails if the policy falls below 1.2x uniform
// revisits on the 10% web with 70% or more of the pages dated.
func TestFreshnessBenchmark(t *testing.T) {
	if os.Getenv("WEBTABLE_FRESHNESS") == "" {
		t.Skip("set WEBTABLE_FRESHNESS=1 to run the 10,000 page benchmark (TestFreshness runs a smaller one)")
	}
	for _, never := range []float64{0.2, 0.1} {
		for _, lm := range []float64{0, 0.5, 0.7, 1} {
			runs := map[string][]float64{}
			for seed := uint64(1); seed <= 5; seed++ {
				for name, r := range compare(t, never, 10_000, 90, 30, lm, 0.1, seed) {
					runs[name] = append(runs[name], r.Freshness)
				}
			}
			med := map[string]Result{}
			for name, fs := range runs {
				sort.Float64s(fs)
				med[name] = Result{Freshness: fs[len(fs)/2], Fetches: 90_000}
			}
			logResults(t, fmt.Sprintf("never %.0f%%, Last-Modified %3.0f%%, median of 5 seeds:", never*100, lm*100), med)
			// NB: issue 35's goal, 1.2x uniform and above Nutch, is
			// checked where the oracle leaves room for it (1.26x): the
			// web where 10% of the pages never change, 70% dated or more.
			margin := 1.0
			if never == 0.1 && lm >= 0.7 {
				margin = 1.2
			}
			checkOrder(t, med, margin, 1.15)
		}
	}
}

// checkOrder fails unless the policy by change rate beats uniform and
// Nutch by margin and the oracle reaches oracle times uniform.
func checkOrder(t *testing.T, got map[string]Result, margin, oracle float64) {
	t.Helper()
	u, n, r, o := got["uniform"].Freshness, got["nutch"].Freshness, got["rate"].Freshness, got["oracle"].Freshness
	if r <= margin*u || r <= margin*n {
		t.Errorf("freshness by change rate %.4f, want more than %.2f x uniform's %.4f and Nutch's %.4f", r, margin, u, n)
	}
	if o < oracle*u {
		t.Errorf("freshness with the true rates %.4f < %.2f x uniform %.4f: the policy itself falls short", o, oracle, u)
	}
}
