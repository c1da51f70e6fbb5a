package webui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// FuzzStoredPageRendersAsText stores an arbitrary body and anchor text and
// renders the page that shows them: the interface's markup must not change
// (no element comes from the store) and the body never reaches the page.
func FuzzStoredPageRendersAsText(f *testing.F) {
	f.Add([]byte(hostile), `</td></iframe><script>alert(1)</script>`)
	f.Add([]byte("<a href=\"/x\">\xff<b>x</b></a><base href=//e/>"), "\xff\xfe<!--")
	f.Add([]byte(`<svg onload=alert(1)><a href="javascript:x">y</a><meta http-equiv=refresh content=0>`), `"><img src=x onerror=alert(1)>`)
	w := fixture(f, 0)
	ui, err := New(w, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ui.Close() })
	tag := regexp.MustCompile(`<[a-zA-Z/!?]`)
	n := 0
	render := func(t *testing.T, body []byte, text string) string {
		t.Helper()
		n++
		ctx := context.Background()
		url := fmt.Sprintf("http://fuzz.test/%d", n)
		p := &webtable.Page{Fetch: crawlstore.Fetch{URL: url, Status: 200, Time: t0}, MIME: "text/html", KeepBody: true, Body: body}
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddLinks(ctx, "http://from.test/", []webtable.Anchor{{URL: url, Text: text}}, nil, stamp); err != nil {
			t.Fatal(err)
		}
		rec := serveOnce(t, ui, "/page?url="+url, false)
		if rec.Code != 200 {
			t.Fatalf("page view: %d\n%s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	f.Fuzz(func(t *testing.T, body []byte, text string) {
		got := render(t, body, text)
		plain := render(t, body, "x")
		// The same body with a harmless anchor text gives as many tags.
		if a, b := len(tag.FindAllString(got, -1)), len(tag.FindAllString(plain, -1)); a != b {
			t.Fatalf("anchor text %q added %d tags to the page", text, a-b)
		}
		for _, bad := range []string{"<script", "<base", "<meta http-equiv", "<svg onload", "javascript:"} {
			if strings.Contains(strings.ToLower(got), bad) {
				t.Fatalf("the page holds %q as markup", bad)
			}
		}
		if strings.Count(got, "<iframe") != 1 || strings.Count(got, "</iframe>") != 1 {
			t.Fatalf("the page has %d frames opened, %d closed; want 1", strings.Count(got, "<iframe"), strings.Count(got, "</iframe>"))
		}
	})
}
