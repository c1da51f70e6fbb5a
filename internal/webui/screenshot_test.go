package webui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// TestScreenshot stores a rendered page with a screenshot: the page view
// shows it, /screenshot serves it as a PNG under the stored bodies'
// policy, and a page without one shows none.
func TestScreenshot(t *testing.T) {
	ctx := context.Background()
	w, err := stores.Open(ctx, filepath.Join(t.TempDir(), "db"), stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.EnsureScreenshots(ctx); err != nil {
		t.Fatal(err)
	}
	png := "\x89PNG\r\n\x1a\nnot really"
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for _, p := range []*webtable.Page{
		{Fetch: crawlstore.Fetch{URL: "http://spa.test/", Status: 200, Time: at, Rendered: true, RenderTime: 120 * time.Millisecond},
			MIME: "text/html", KeepBody: true, Body: []byte(`<div id="app"></div>`), Rendered: []byte(`<div id="app"><a href="/a">a</a></div>`), Screenshot: []byte(png)},
		{Fetch: crawlstore.Fetch{URL: "http://plain.test/", Status: 200, Time: at}, MIME: "text/html", KeepBody: true, Body: []byte(`<p>hi</p>`)},
	} {
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	_, srv := serve(t, w, Options{})
	_, page := get(t, srv, "/page?row=test.spa/", false)
	if !strings.Contains(page, `<img class="screenshot" src="/screenshot?row=test.spa%2f"`) {
		t.Errorf("the page view of a rendered page shows no screenshot:\n%s", page)
	}
	resp, body := get(t, srv, "/screenshot?row=test.spa/", false)
	if resp.StatusCode != 200 || body != png || resp.Header.Get("Content-Type") != "image/png" || resp.Header.Get("Content-Security-Policy") != bodyPolicy {
		t.Errorf("/screenshot = %d %q (%s, CSP %q), want the stored PNG under %q", resp.StatusCode, body, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"), bodyPolicy)
	}
	if _, page := get(t, srv, "/page?row=test.plain/", false); strings.Contains(page, "screenshot") {
		t.Errorf("the page view of a page without a screenshot mentions one")
	}
	if resp, _ := get(t, srv, "/screenshot?row=test.plain/", false); resp.StatusCode != 404 {
		t.Errorf("/screenshot of a page without one = %d, want 404", resp.StatusCode)
	}
}
