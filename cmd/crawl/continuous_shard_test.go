package main

import (
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestContinuousShardRuns: crawl --continuous --shard runs (it was
// refused before) and, started again, carries on: each start fetches
// only the hosts of its shard, and the second fetches its pages again
// once they are due. (crawler's TestContinuousShards runs two shards at
// once.)
func TestContinuousShardRuns(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	web := newManyHostWeb(t, 6, 1)
	seed := ""
	for h := range 6 {
		if crawlstore.ShardOf(web.host(h), 2) == 0 {
			seed = "http://" + web.host(h) + "/p/0"
			break
		}
	}
	args := []string{"--proxy", web.srv.URL, "--depth", "1000", "--per-host", "1", "--allow-domain", "web.test",
		"--user-agent", "shard-0", "--shard", "0/2", seed}
	clock := &stepClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), stopAfter: 1}
	continuousRun(t, "bigtable://p/i/t", clock, args...)
	first := fetchesOf(web)
	if first == 0 {
		t.Fatalf("shard 0/2 fetched nothing from its seed %s", seed)
	}
	clock.idle, clock.calls, clock.stopAfter = 0, 0, 1
	clock.now = clock.now.Add(2 * time.Hour) // every page due again
	continuousRun(t, "bigtable://p/i/t", clock, args...)
	if again := fetchesOf(web); again < 2*first {
		t.Errorf("shard 0/2 started again 2h later made %d fetches in all, want its %d pages again (%d or more)", again, first, 2*first)
	}
	web.mu.Lock()
	defer web.mu.Unlock()
	for u, uas := range web.fetches {
		host, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
		if s := crawlstore.ShardOf(host, 2); s != 0 {
			t.Errorf("%s (a host of shard %d) was fetched by shard 0: %v", u, s, uas)
		}
	}
}

// fetchesOf counts the page fetches web answered.
func fetchesOf(web *manyHostWeb) int {
	web.mu.Lock()
	defer web.mu.Unlock()
	n := 0
	for _, uas := range web.fetches {
		n += len(uas)
	}
	return n
}
