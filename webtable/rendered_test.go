package webtable

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestRendered stores a rendered page twice: contents:rendered keeps a
// version per fetch beside the one contents:html version of the unchanged
// served bytes, the screenshot its newest, the fetch record reads back
// rendered and its time, Captures carries the rendered page, and the
// schema lists the screenshot family once a crawl created it.
func TestRendered(t *testing.T) {
	w, _ := openTemp(t)
	ctx := context.Background()
	_, fams, err := w.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(fams, func(f FamilyInfo) bool { return f.Name == FamilyScreenshot }) {
		t.Fatalf("a new table lists %s before any crawl took a screenshot", FamilyScreenshot)
	}
	if err := w.EnsureScreenshots(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for i, dom := range []string{`<a href="/a">a</a>`, `<a href="/b">b</a>`} {
		p := &Page{Fetch: crawlstore.Fetch{URL: "http://spa.test/", Status: 200, Time: at.Add(time.Duration(i) * time.Hour), Rendered: true, RenderTime: 150 * time.Millisecond},
			MIME: "text/html", KeepBody: true, Body: []byte(`<div id="app"></div>`), Rendered: []byte(dom), Screenshot: []byte("png" + dom)}
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	row, err := w.Get(ctx, "test.spa/", Query{Versions: -1})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range row.Cells {
		count[c.Column()]++
	}
	if count[RenderedColumn] != 2 || count["contents:html"] != 1 || count[ScreenshotColumn] != 1 {
		t.Errorf("versions %v, want 2 of %s, 1 of contents:html (unchanged), 1 of %s", count, RenderedColumn, ScreenshotColumn)
	}
	f, ok, err := w.LastFetch(ctx, "http://spa.test/")
	if err != nil || !ok || !f.Rendered || f.RenderTime != 150*time.Millisecond {
		t.Errorf("LastFetch = %+v, %v, %v; want rendered in 150ms", f, ok, err)
	}
	var caps []*Capture
	if err := w.Captures(ctx, nil, Selection{All: true}, func(c *Capture) error { caps = append(caps, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 || string(caps[0].Rendered) != `<a href="/a">a</a>` {
		t.Errorf("Captures = %d, rendered %q; want the one version with the render of its own fetch", len(caps), caps[0].Rendered)
	}
	if _, fams, _ = w.Schema(ctx); !slices.ContainsFunc(fams, func(f FamilyInfo) bool { return f.Name == FamilyScreenshot && f.GCPolicy != "" }) {
		t.Errorf("Schema %v lacks %s with its policy", fams, FamilyScreenshot)
	}
}
