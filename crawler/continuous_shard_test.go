package crawler

import (
	"fmt"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// TestContinuousShards runs a continuous crawl as two shards on one
// store, each on its own clock: each fetches the hosts of its shard
// (links cross shards through the store), keeps their due entries, and a
// restart of one shard fetches its own pages again when due, not the
// other's.
func TestContinuousShards(t *testing.T) {
	hosts := make([]string, 2)
	for i, found := 0, 0; found < 2; i++ {
		h := fmt.Sprintf("h%d.shard.test", i)
		if s := crawlstore.ShardOf(h, 2); hosts[s] == "" {
			hosts[s] = h
			found++
		}
	}
	w := newVWeb(t)
	w.site(hosts[0], "", map[string]string{"/": page(`<a href="http://` + hosts[1] + `/">over</a>`)})
	w.site(hosts[1], "", map[string]string{"/": page(`<a href="/2">2</a>`), "/2": page("2")})
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	store := crawlertest.NewMemStore()
	seed := "http://" + hosts[0] + "/"
	shard := func(i int, clock *manualClock) *continuousRun {
		cfg := w.config()
		cfg.Shard, cfg.Shards = i, 2
		cfg.AllowDomains = []string{"shard.test"}
		cfg.UserAgent = fmt.Sprintf("shard-%d", i)
		return startContinuous(t, cfg, clock, store, seed)
	}
	// NB: buffered, and waited on until a condition holds: a shard is also
	// woken by the other's entries, and waits once more each time.
	clocks := []*manualClock{{now: t0, waiting: make(chan struct{}, 1000)}, {now: t0, waiting: make(chan struct{}, 1000)}}
	waitFor := func(c *manualClock, cond func() bool) {
		for !cond() {
			<-c.waiting
		}
	}
	shard(0, clocks[0])
	one := shard(1, clocks[1])
	// Shard 1 takes the link shard 0 queued for it, the clock unmoved.
	waitFor(clocks[1], func() bool { return len(store.Due()) == 3 })
	if got := len(w.paths(hosts[1])); got != 2 {
		t.Fatalf("shard 1 fetched %d pages of %s, want 2", got, hosts[1])
	}

	// Shard 1 restarts an hour later and fetches its pages again.
	one.stop()
	clocks[1].advance(time.Hour)
	shard(1, clocks[1])
	refetched := func() bool {
		due := store.Due()
		for _, u := range []string{"http://" + hosts[1] + "/", "http://" + hosts[1] + "/2"} {
			k, _ := urlkey.Key(u)
			if !due[k].After(t0.Add(90 * time.Minute)) {
				return false
			}
		}
		return true
	}
	waitFor(clocks[1], refetched)
	if got := len(w.paths(hosts[1])); got != 4 {
		t.Errorf("after the restart %s had %d fetches, want 4 (its 2 pages again)", hosts[1], got)
	}
	seedKey, err := urlkey.Key(seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, kept := store.Due()[seedKey]; !kept {
		t.Errorf("the due entry of %s (shard 0's) was taken by the restarted shard 1: %v", seed, store.Due())
	}
	if got := len(w.paths(hosts[0])); got != 1 {
		t.Errorf("%s (shard 0's, whose clock did not move) had %d fetches, want 1", hosts[0], got)
	}
	for i, h := range hosts {
		for _, hit := range w.hitsOf(h) {
			if ua := hit.Header.Get("User-Agent"); ua != fmt.Sprintf("shard-%d", i) {
				t.Errorf("%s%s fetched by %q, want shard-%d", h, hit.Path, ua, i)
			}
		}
	}
}
