package metrics

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/webtable/webtable/crawler"
)

// TestServe: Serve answers /metrics on the address it chose, and Close
// stops it.
func TestServe(t *testing.T) {
	s, err := Serve("127.0.0.1:0", func(err error) { t.Errorf("server failed: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + s.Addr.String() + "/metrics"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("GET %s = %d, %.200q; want 200 with go_goroutines", url, resp.StatusCode, body)
	}
	s.Close()
	if resp, err := http.Get(url); err == nil {
		resp.Body.Close()
		t.Fatalf("GET %s after Close = %d, want an error", url, resp.StatusCode)
	}
	if _, err := Serve(s.Addr.String()+"x", nil); err == nil {
		t.Errorf("Serve(%q) = nil error, want one", s.Addr.String()+"x")
	}
}

// TestFeedNil: with no metrics served (a nil Crawl) the crawler's
// configuration is left as it is and watching does nothing; with metrics
// it gets their hooks.
func TestFeedNil(t *testing.T) {
	var none *Crawl
	cfg := crawler.DefaultConfig()
	if got := none.Feed(cfg); got.Hooks.Fetch != nil {
		t.Errorf("nil Crawl set hooks")
	}
	none.Watch(nil)
	if got := New().Feed(cfg); got.Hooks.Fetch == nil {
		t.Errorf("Feed left the hooks unset")
	}
}
