package render

import (
	"net/http"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/network"

	"github.com/webtable/webtable/crawler"
)

// maxCached is the most bytes of subresources a pool keeps.
const maxCached = 32 << 20

// cache keeps the scripts, styles, fonts and images pages asked for, so
// that the pages of one site, which share them, ask the crawler (and its
// origin, with its delay) once: a render that needs one already fetched
// costs no request. Only complete 200 answers that do not forbid storing
// are kept; the oldest go first past maxCached bytes. Safe for concurrent
// use.
type cache struct {
	mu    sync.Mutex
	byURL map[string]*crawler.SubResponse
	order []string // URLs, oldest first
	size  int
}

func newCache() *cache { return &cache{byURL: map[string]*crawler.SubResponse{}} }

// cacheable reports whether a request of this type is kept.
func cacheable(t network.ResourceType, method string) bool {
	if method != http.MethodGet {
		return false
	}
	switch t {
	case network.ResourceTypeScript, network.ResourceTypeStylesheet, network.ResourceTypeFont, network.ResourceTypeImage:
		return true
	}
	return false
}

// get returns the kept answer for url, if any.
func (c *cache) get(url string) (*crawler.SubResponse, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byURL[url]
	return r, ok
}

// put keeps resp for url when it may be kept.
func (c *cache) put(url string, resp *crawler.SubResponse) {
	cc := strings.ToLower(resp.Header.Get("Cache-Control"))
	if resp.Status != http.StatusOK || strings.Contains(cc, "no-store") || len(resp.Body) > maxCached/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byURL[url]; ok {
		return
	}
	c.byURL[url] = resp
	c.order = append(c.order, url)
	c.size += len(resp.Body)
	for c.size > maxCached && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(c.byURL[old].Body)
		delete(c.byURL, old)
	}
}
