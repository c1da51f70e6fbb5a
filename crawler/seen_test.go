package crawler

import (
	"fmt"
	"testing"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// TestSeenCacheBounded: the cache holds at most its size, keeps what was
// used recently, and with size 0 remembers nothing.
func TestSeenCacheBounded(t *testing.T) {
	c := newSeenCache(100)
	for i := range 1000 {
		c.add(fmt.Sprint(i))
		if i%10 == 0 {
			c.has("0") // kept in use
		}
	}
	if n := len(c.cur) + len(c.old); n > 100 {
		t.Errorf("cache holds %d keys, want at most 100", n)
	}
	if !c.has("0") || !c.has("999") {
		t.Error("a key in use or just added was forgotten")
	}
	if c.has("500") {
		t.Error("an old key unused since is still there")
	}
	off := newSeenCache(0)
	off.add("x")
	if off.has("x") {
		t.Error("a cache of size 0 remembered a key")
	}
}

// TestSeenCacheSparesTheStore: a link every page carries (home) reaches the
// store once per run with the cache, and the crawl stores the same rows
// without it.
func TestSeenCacheSparesTheStore(t *testing.T) {
	pages := map[string]string{}
	for i := range 30 {
		pages[fmt.Sprintf("/%d", i)] = page(fmt.Sprintf(`<a href="/">home</a><a href="/%d">next</a>`, i+1))
	}
	pages["/"] = page(`<a href="/0">start</a>`)
	rows := map[int]int{}
	for _, size := range []int{DefaultSeenCache, 0} {
		w := newVWeb(t)
		w.site("a.test", "", pages)
		cfg := w.config()
		cfg.SeenCache = size
		homes := 0
		store := crawlertest.NewMemStore()
		crawl(t, cfg, &spyStore{Store: store, pages: func(p *crawlstore.Page) {
			for _, e := range p.Discovered {
				if e.URL == "http://a.test/" {
					homes++
				}
			}
		}}, "http://a.test/")
		rows[size] = len(store.Keys())
		if size > 0 && homes != 0 {
			t.Errorf("with the cache, home was sent to the store %d times after its own save, want 0", homes)
		}
		if size == 0 && homes == 0 {
			t.Error("without the cache, home was never sent to the store: the test proves nothing")
		}
	}
	if rows[0] != rows[DefaultSeenCache] {
		t.Errorf("rows with the cache %d, without %d: want the same", rows[DefaultSeenCache], rows[0])
	}
}
