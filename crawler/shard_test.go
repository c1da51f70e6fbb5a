package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

func TestShardOf(t *testing.T) {
	// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c, of "" 0xcbf29ce484222325:
	// the documented hash, computed by hand, not by hash/fnv. The bucket is
	// the hash modulo 720720; shard i of n owns buckets
	// [i*720720/n, (i+1)*720720/n).
	for _, n := range []int{2, 3, 7, 16, 1000} {
		for _, tc := range []struct {
			host string
			hash uint64
		}{{"a", 0xaf63dc4c8601ec8c}, {"", 0xcbf29ce484222325}} {
			b := int(tc.hash % 720720)
			got := crawlstore.ShardOf(tc.host, n)
			if lo, hi := got*720720/n, (got+1)*720720/n; b < lo || b >= hi {
				t.Errorf("ShardOf(%q, %d) = %d, whose buckets [%d, %d) miss the host's bucket %d", tc.host, n, got, lo, hi, b)
			}
		}
	}
	same := [][]string{
		{"www.cnn.com", "WWW.CNN.COM", "www.cnn.com:8080", "www.cnn.com.", "Www.Cnn.Com.:443"},
		{"::1", "[::1]", "[::1]:8080"},
		{"127.0.0.1", "127.0.0.1:80"},
	}
	for _, hosts := range same {
		for _, n := range []int{3, 16} {
			want := crawlstore.ShardOf(hosts[0], n)
			for _, h := range hosts[1:] {
				if got := crawlstore.ShardOf(h, n); got != want {
					t.Errorf("ShardOf(%q, %d) = %d, want %d as for %q", h, n, got, want, hosts[0])
				}
			}
		}
	}
	for _, n := range []int{-1, 0, 1} {
		if got := crawlstore.ShardOf("www.cnn.com", n); got != 0 {
			t.Errorf("ShardOf(_, %d) = %d, want 0 (no sharding)", n, got)
		}
	}
	// The hash spreads hosts: 3,000 hosts, each of 3 shards gets a fair part.
	count := make([]int, 3)
	for i := range 3000 {
		count[crawlstore.ShardOf(fmt.Sprintf("host%d.example.com", i), 3)]++
	}
	for s, c := range count {
		if c < 900 || c > 1100 {
			t.Errorf("shard %d got %d of 3000 hosts, want about 1000 (counts %v)", s, c, count)
		}
	}
}

func TestShardConfig(t *testing.T) {
	tests := []struct {
		shard, shards int
		ok            bool
	}{
		{0, 0, true}, {0, 1, true}, {0, 3, true}, {2, 3, true},
		{3, 3, false}, {-1, 3, false}, {1, 0, false}, {1, 1, false}, {0, -2, false},
	}
	for _, tc := range tests {
		cfg := DefaultConfig()
		cfg.Shard, cfg.Shards = tc.shard, tc.shards
		_, err := New(cfg, crawlertest.NewMemStore())
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("New with shard %d/%d: error %v, want ok=%v (ErrConfig otherwise)", tc.shard, tc.shards, err, tc.ok)
		}
	}
}

// shardHosts are 8 host names, at most 3 in each of 3 shards, so that
// every shard has work: hN.shard.test for the first N that fit.
func shardHosts() []string {
	var hosts []string
	count := make([]int, 3)
	for n := 0; len(hosts) < 8; n++ {
		h := fmt.Sprintf("h%d.shard.test", n)
		if s := crawlstore.ShardOf(h, 3); count[s] < 3 {
			count[s]++
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// shardWeb serves the 8 shardHosts, 10 pages each: page i links to page
// i+1 of its host and page i of the next host; page 0 links to /go, a
// redirect to page 5 of the host 3 further on; page 9 links to a missing
// page.
func shardWeb(t *testing.T) *vweb {
	w := newVWeb(t)
	hosts := shardHosts()
	const pages = 10
	for h, name := range hosts {
		w.handle(name, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			var i int
			if r.URL.Path == "/go" {
				http.Redirect(rw, r, fmt.Sprintf("http://%s/5", hosts[(h+3)%len(hosts)]), http.StatusMovedPermanently)
				return
			}
			if _, err := fmt.Sscanf(r.URL.Path, "/%d", &i); err != nil || i < 0 || i >= pages {
				http.NotFound(rw, r)
				return
			}
			var b strings.Builder
			fmt.Fprintf(&b, `<a href="/%d">next</a> <a href="http://%s/%d">over</a>`, (i+1)%pages, hosts[(h+1)%len(hosts)], i)
			if i == 0 {
				b.WriteString(`<a href="/go">go</a>`)
			}
			if i == pages-1 {
				b.WriteString(`<a href="/missing">missing</a>`)
			}
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page(b.String()))
		}))
	}
	return w
}

// comparable is what must match between a sharded and a single crawl:
// states, contents, anchors, media types and redirect targets of every
// row (not the fetch times, depths or the status of a redirect source,
// which differ with who followed the redirect).
func comparable(store *crawlertest.MemStore) map[string]string {
	out := map[string]string{}
	for k, r := range store.Rows() {
		var shas []string
		for _, v := range r.Versions {
			shas = append(shas, v.SHA256[:8])
		}
		mime := r.MediaType
		if r.Redirect != "" {
			// A redirect source holds the 3xx's media type when the
			// redirect was not followed (its target was met first), none
			// when it was: a matter of timing in any crawl.
			mime = "-"
		}
		out[k] = fmt.Sprintf("state=%v mime=%q redirect=%q versions=%v anchors=%v", r.State, mime, r.Redirect, shas, r.Anchors)
	}
	return out
}

// TestShards runs 3 shards at once on one shared MemStore, in rounds, as
// the package documentation prescribes (each shard runs until its own
// frontier is empty; the rounds go on until one has no successful fetch),
// and checks the union against one unsharded crawl of the same web.
func TestShards(t *testing.T) {
	const shards = 3
	seed := "http://" + shardHosts()[0] + "/0"
	// A seed that always fails is fetched again by every round given the
	// seeds (failures are retried); it must not keep the rounds going.
	bad := "http://" + shardHosts()[1] + "/no-such-page"

	single := shardWeb(t)
	cfg := single.config()
	cfg.Depth = 50
	cfg.AllowDomains = []string{"shard.test"}
	want := crawlertest.NewMemStore()
	crawl(t, cfg, want, seed, bad)

	w := shardWeb(t)
	store := crawlertest.NewMemStore()
	crawlers := make([]*Crawler, shards)
	for i := range crawlers {
		cfg := w.config()
		cfg.Depth = 50
		cfg.AllowDomains = []string{"shard.test"}
		cfg.Shard, cfg.Shards = i, shards
		cfg.UserAgent = fmt.Sprintf("webtable/%s (shard %d)", Version, i)
		c, err := New(cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		crawlers[i] = c
	}
	rounds := 0
	for ; rounds < 20; rounds++ {
		seeds := []string{seed, bad} // every shard gets them, every round; one fetches each
		var wg sync.WaitGroup
		var mu sync.Mutex
		var work int64
		for _, c := range crawlers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := c.Run(context.Background(), seeds)
				if err != nil {
					t.Errorf("shard %d: %v", c.cfg.Shard, err)
				}
				mu.Lock()
				work += st.Fetched
				mu.Unlock()
			}()
		}
		wg.Wait()
		if work == 0 { // no successful fetch: nothing new was queued
			break
		}
	}
	if rounds >= 20 {
		t.Fatalf("shards still fetching after %d rounds", rounds)
	}
	t.Logf("%d rounds, the last with no successful fetch", rounds+1)

	if diff := cmp.Diff(comparable(want), comparable(store)); diff != "" {
		t.Errorf("rows of 3 shards differ from a single crawl's (-single +shards):\n%s", diff)
	}
	// Server side: no URL fetched twice, and every host by one shard only,
	// the one ShardOf names.
	seen := map[string]int{}
	by := map[string]map[string]bool{}
	for _, h := range w.hits {
		seen[h.Host+h.Path]++
		if by[h.Host] == nil {
			by[h.Host] = map[string]bool{}
		}
		by[h.Host][h.Header.Get("User-Agent")] = true
	}
	for u, n := range seen {
		if u == strings.TrimPrefix(bad, "http://") {
			if n != rounds+1 {
				t.Errorf("failing seed fetched %d times in %d rounds, want once a round", n, rounds+1)
			}
			continue
		}
		if n > 1 {
			t.Errorf("%s fetched %d times", u, n)
			for _, h := range w.hits {
				if h.Host+h.Path == u {
					t.Logf("%s by %s", u, h.Header.Get("User-Agent"))
				}
			}
		}
	}
	if len(seen) != len(single.hits) {
		t.Errorf("shards made %d distinct requests, the single crawl %d", len(seen), len(single.hits))
	}
	used := map[int]bool{}
	for host, agents := range by {
		wantUA := fmt.Sprintf("webtable/%s (shard %d)", Version, crawlstore.ShardOf(host, shards))
		if len(agents) != 1 || !agents[wantUA] {
			t.Errorf("host %s fetched by %v, want only %q", host, agents, wantUA)
		}
		used[crawlstore.ShardOf(host, shards)] = true
	}
	if len(used) != shards {
		t.Errorf("hosts fell in shards %v: the test web must give every shard work", used)
	}
}

// TestShardSkipsOthers: a shard given only another shard's seed and
// queued entries fetches nothing, queues the seed for its owner and
// leaves the entries queued; the owner then fetches them.
func TestShardSkipsOthers(t *testing.T) {
	w := shardWeb(t)
	hosts := shardHosts()
	mineHost, otherHost := hosts[0], ""
	for _, h := range hosts {
		if crawlstore.ShardOf(h, 3) != crawlstore.ShardOf(mineHost, 3) {
			otherHost = h
			break
		}
	}
	owner, other := crawlstore.ShardOf(otherHost, 3), crawlstore.ShardOf(mineHost, 3)
	store := crawlertest.NewMemStore()
	if _, err := store.Enqueue(t.Context(), []crawlstore.Entry{{URL: "http://" + otherHost + "/3", Depth: 1}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	cfg := w.config()
	cfg.Depth = 0
	cfg.AllowDomains = []string{"shard.test"}
	cfg.Shard, cfg.Shards = other, 3
	seed := "http://" + otherHost + "/0"
	st := crawl(t, cfg, store, seed)
	if st.Fetched+st.Errors != 0 || len(w.hits) != 0 {
		t.Errorf("shard %d fetched %d pages (%d requests) of %s, which is shard %d's", other, st.Fetched+st.Errors, len(w.hits), otherHost, owner)
	}
	for _, u := range []string{seed, "http://" + otherHost + "/3"} {
		if row, _ := store.Row(u); row.State != crawlstore.StateQueued {
			t.Errorf("%s = %v, want queued for shard %d", u, row.State, owner)
		}
	}
	cfg.Shard = owner
	if st := crawl(t, cfg, store); st.Fetched != 2 {
		t.Errorf("owner shard %d fetched %d, want its 2 queued entries", owner, st.Fetched)
	}
}
