package crawler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
)

// hintStore is a MemStore that answers FrontierHint with a position chosen
// by the test, right or wrong.
type hintStore struct {
	*MemStore
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
		pick func(live []Entry) string
	}{
		{"no hint", func([]Entry) string { return "" }},
		{"first entry", func(live []Entry) string { return live[0].Frontier }},
		{"middle entry", func(live []Entry) string { return live[len(live)/2].Frontier }},
		{"past every entry", func(live []Entry) string { return "~" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newVWeb(t)
			w.site("a.test", "", fanSite(leaves))
			mem := NewMemStore()
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
