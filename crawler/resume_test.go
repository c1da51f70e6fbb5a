package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// hintStore is a MemStore that answers FrontierHint with a position chosen
// by the test, right or wrong.
type hintStore struct {
	*crawlertest.MemStore
	hint  string
	asked atomic.Int32
}

func (h *hintStore) FrontierHint(ctx context.Context, host string) (string, error) {
	h.asked.Add(1)
	return h.hint, nil
}

// fanSite is a home page linking to pages /1 .. /n, which link nowhere.
func fanSite(n int) map[string]string {
	home := ""
	pages := map[string]string{}
	for i := 1; i <= n; i++ {
		home += fmt.Sprintf(`<a href="/%d">%d</a>`, i, i)
		pages[fmt.Sprintf("/%d", i)] = page("leaf")
	}
	pages["/"] = page(home)
	return pages
}

// TestResumeFromWrongHint: a resumed run starts each host at the store's
// hint and reads the entries before it in the background, so whatever the
// hint (none, the first entry, one in the middle, past every entry), every
// page is fetched, and none twice.
func TestResumeFromWrongHint(t *testing.T) {
	const leaves = 40
	for _, tc := range []struct {
		name string
		pick func(live []crawlstore.Entry) string
	}{
		{"no hint", func([]crawlstore.Entry) string { return "" }},
		{"first entry", func(live []crawlstore.Entry) string { return live[0].Frontier }},
		{"middle entry", func(live []crawlstore.Entry) string { return live[len(live)/2].Frontier }},
		{"past every entry", func(live []crawlstore.Entry) string { return "~" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newVWeb(t)
			w.site("a.test", "", fanSite(leaves))
			mem := crawlertest.NewMemStore()
			cfg := w.config()
			cfg.Concurrency, cfg.PerHost = 1, 1
			ctx, cancel := context.WithCancel(context.Background())
			cfg.Progress = func(s Stats) {
				if s.Fetched == 10 {
					cancel()
				}
			}
			c, err := New(cfg, mem)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Run(ctx, []string{"http://a.test/"}); !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped Run error = %v, want context.Canceled", err)
			}
			c.Close()
			b, err := mem.Next(context.Background(), "a.test", "", 1000)
			if err != nil || len(b.Entries) < 10 {
				t.Fatalf("after the stop the frontier holds %d entries (%v), want most of the %d leaves", len(b.Entries), err, leaves)
			}
			hs := &hintStore{MemStore: mem, hint: tc.pick(b.Entries)}
			cfg.Progress = nil
			cfg.Concurrency, cfg.PerHost = 4, 4
			crawl(t, cfg, hs)
			paths := w.paths("a.test")
			if len(paths) != leaves+1 {
				t.Errorf("over both runs %d pages were fetched, want %d: %v", len(paths), leaves+1, paths)
			}
			slices.Sort(paths)
			if d := slices.Compact(slices.Clone(paths)); len(d) != len(paths) {
				t.Errorf("some pages were fetched twice: %v", paths)
			}
			if n := hs.asked.Load(); n != 1 {
				t.Errorf("the hint of a.test was asked %d times, want once (at the host's first read)", n)
			}
			if rest := mem.Frontier(); len(rest) != 0 {
				t.Errorf("frontier after the resumed run = %v, want empty", rest)
			}
		})
	}
}

// TestShardRunTakesUpOtherShardsEntries: while a sharded run goes on,
// another shard queues a page of a host of this shard that the run has
// never seen (a link found on one of its own pages); the run fetches it
// before it ends, rather than leaving it to the shard's next run (issue
// 30: a run per hop of links that cross shards).
func TestShardRunTakesUpOtherShardsEntries(t *testing.T) {
	const shards = 2
	var mine []string // hosts of shard 0
	for i := 0; len(mine) < 2; i++ {
		if h := fmt.Sprintf("h%d.test", i); crawlstore.ShardOf(h, shards) == 0 {
			mine = append(mine, h)
		}
	}
	seedHost, fedHost := mine[0], mine[1]
	w := newVWeb(t)
	store := crawlertest.NewMemStore()
	queued := make(chan error, 1)
	w.handle(seedHost, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			// Another shard's save, while this run fetches its seed.
			_, err := store.Enqueue(context.Background(), []crawlstore.Entry{{URL: "http://" + fedHost + "/", Depth: 1}}, crawlstore.Requeue{})
			queued <- err
		}
		fmt.Fprint(rw, page("no links"))
	}))
	w.site(fedHost, "", map[string]string{"/": page("fed")})
	cfg := w.config()
	cfg.Shard, cfg.Shards = 0, shards
	cfg.AllowDomains = []string{"test"}
	st := crawl(t, cfg, store, "http://"+seedHost+"/")
	if err := <-queued; err != nil {
		t.Fatal(err)
	}
	if got := w.paths(fedHost); len(got) != 1 {
		t.Errorf("%s, queued by another shard during the run, was fetched %d times in it (%v), want once; the run fetched %d pages", fedHost, len(got), got, st.Fetched)
	}
}
