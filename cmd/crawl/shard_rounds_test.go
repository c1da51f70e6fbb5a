package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestShardsChainAcrossShards crawls a chain of hosts whose every link
// crosses to the other of 2 shards: each shard must take up the links the
// other queues for it while its round goes on (or start its next round at
// once), not a round per hop after a poll. Issue 30: a shard's rounds of
// 20-180 pages made 3 shards of a 200-host web 3.4 times slower than one.
func TestShardsChainAcrossShards(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const shards, hops = 2, 24
	// Hosts alternating between the shards: c<k> of shard k%2.
	var hosts []string
	for i := 0; len(hosts) < hops; i++ {
		if h := fmt.Sprintf("c%d.chain.test", i); crawlstore.ShardOf(h, shards) == len(hosts)%shards {
			hosts = append(hosts, h)
		}
	}
	var mu sync.Mutex
	fetched := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := -1
		for i, h := range hosts {
			if h == r.Host {
				k = i
			}
		}
		if k < 0 || r.URL.Path != "/" {
			http.NotFound(w, r) // robots.txt too
			return
		}
		mu.Lock()
		fetched[r.Host]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!DOCTYPE html><title>%d</title>", k)
		if k+1 < len(hosts) {
			fmt.Fprintf(w, `<a href="http://%s/">next</a>`, hosts[k+1])
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	rounds := make([]int, shards)
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// NB: --shard-timeout 20s polls every second, so that a round
			// per hop would take a second each.
			code, _, stderr := runCrawl(ctx, "--db", "bigtable://p/i/chain", "--proxy", srv.URL, "--delay", "0",
				"--depth", "1000", "--allow-domain", "chain.test", "--shard", fmt.Sprintf("%d/%d", i, shards),
				"--shard-timeout", "20s", "http://"+hosts[0]+"/")
			if code != exitOK {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, stderr)
			}
			m := regexp.MustCompile(`this shard worked (\d+) rounds`).FindStringSubmatch(stderr)
			if m == nil {
				t.Errorf("shard %d/%d does not say how many rounds it worked:\n%s", i, shards, stderr)
				return
			}
			rounds[i], _ = strconv.Atoi(m[1])
			if rounds[i] > 3 {
				t.Errorf("shard %d/%d worked %d rounds for a chain of %d hosts, want 3 at most: it does not take up the other shard's links as they come\n%s",
					i, shards, rounds[i], hops, lastLines(stderr, 12))
			}
		}()
	}
	wg.Wait()
	for _, h := range hosts {
		if fetched[h] != 1 {
			t.Errorf("%s fetched %d times, want once", h, fetched[h])
		}
	}
	t.Logf("rounds per shard: %v", rounds)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
