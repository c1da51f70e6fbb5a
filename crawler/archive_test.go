package crawler

import (
	"compress/gzip"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// headerStore is a MemStore that keeps each saved page's Header.
type headerStore struct {
	*crawlertest.MemStore
	mu      sync.Mutex
	headers map[string]string
}

func (s *headerStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	s.mu.Lock()
	s.headers[p.URL] = string(p.Header)
	s.mu.Unlock()
	return s.MemStore.SavePage(ctx, p)
}

// TestPageHeader: Page.Header is the status line and headers as received,
// naming the gzip and chunking the body no longer has.
func TestPageHeader(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			rw.Header().Set("Content-Type", "text/html")
			rw.Header().Set("Content-Encoding", "gzip")
			rw.Header().Set("X-Served-By", "test")
			zw := gzip.NewWriter(rw)
			zw.Write([]byte(page(`<a href="/plain">plain</a>`)))
			zw.Flush()
			rw.(http.Flusher).Flush() // no Content-Length: chunked
			zw.Close()
		case "/plain":
			rw.Header().Set("Content-Type", "text/html")
			rw.Write([]byte(page("plain")))
		default:
			http.NotFound(rw, r)
		}
	}))
	store := &headerStore{MemStore: crawlertest.NewMemStore(), headers: map[string]string{}}
	cfg := w.config()
	cfg.IgnoreRobots = true
	crawl(t, cfg, store, "http://a.test/")
	h := store.headers["http://a.test/"]
	for _, want := range []string{"HTTP/1.1 200 OK\r\n", "Content-Encoding: gzip\r\n", "Transfer-Encoding: chunked\r\n", "Content-Type: text/html\r\n", "X-Served-By: test\r\n"} {
		if !strings.Contains(h, want) {
			t.Errorf("Header of the gzipped, chunked page = %q, want it to hold %q", h, want)
		}
	}
	if !strings.HasSuffix(h, "\r\n\r\n") {
		t.Errorf("Header %q does not end with an empty line", h)
	}
	p := store.headers["http://a.test/plain"]
	if !strings.HasPrefix(p, "HTTP/1.1 200 OK\r\n") || strings.Contains(p, "Content-Encoding") || strings.Contains(p, "Transfer-Encoding") {
		t.Errorf("Header of the plain page = %q, want a status line and no encodings", p)
	}
}
