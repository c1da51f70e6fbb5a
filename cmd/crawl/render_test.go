package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/spaweb"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/render"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// TestRenderCrawl crawls the SPA site with --render always and with
// never: rendering finds every page (the misbehaving ones cut where they
// must be, the looping one failed with kind render), the plain crawl only
// the shell of the first; what a page asks of another host or of a path
// robots.txt disallows is never fetched (--allow-private: the scope,
// not the guard of private addresses, keeps the other host out).
func TestRenderCrawl(t *testing.T) {
	chromiumtest.Need(t)
	site := spaweb.Start(7)
	defer site.Close()
	ctx := context.Background()
	const depth = 4
	args := func(db string, more ...string) []string {
		return append([]string{"--db", db, "--delay", "0", "--depth", "4", "--render-timeout", "2s", "--allow-private", site.URL + "/"}, more...)
	}

	never := filepath.Join(t.TempDir(), "never")
	if code, _, stderr := runCrawl(ctx, args(never)...); code != exitOK {
		t.Fatalf("crawl --render never: exit %d\n%s", code, stderr)
	}
	if got := rowStates(t, never); len(got) != 1 {
		t.Errorf("crawl --render never stored %v, want only the shell of /", got)
	}

	always := filepath.Join(t.TempDir(), "always")
	if code, _, stderr := runCrawl(ctx, args(always, "--render", "always", "--screenshots")...); code != exitOK {
		t.Fatalf("crawl --render always: exit %d\n%s", code, stderr)
	}
	states := rowStates(t, always)
	want := site.Rendered(depth)
	for _, u := range want {
		key := mustKey(t, u)
		wantState := "done"
		if strings.HasSuffix(u, "/loop") {
			wantState = "failed"
		}
		if states[key] != wantState {
			t.Errorf("%s is %q after crawl --render always (%s), want %s", u, states[key], fetchError(t, always, key), wantState)
		}
	}
	for key, st := range states {
		if st != "queued" && !slices.ContainsFunc(want, func(u string) bool { return mustKey(t, u) == key }) {
			t.Errorf("crawl --render always fetched %s (%s), not a page of the site's oracle", key, st)
		}
	}
	for _, p := range []string{"/private/data.json", "/away/gone", "/popup/window"} {
		if n := site.Hits(p); n != 0 {
			t.Errorf("%s was requested %d times", p, n)
		}
	}
	if n := site.OffsiteHits(); n != 0 {
		t.Errorf("the other host got %d requests: out of scope", n)
	}
	checkRendered(t, always, site.URL+"/p/0")
}

// checkRendered checks what the store holds of a rendered page: the
// served shell in contents:html, the built page in contents:rendered, a
// PNG, and a fetch record that says rendered.
func checkRendered(t *testing.T, db, u string) {
	t.Helper()
	w, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	row, err := w.Get(context.Background(), mustKey(t, u), webtable.Query{})
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string][]byte{}
	for _, c := range row.Cells {
		if _, ok := cells[c.Column()]; !ok {
			cells[c.Column()] = c.Value
		}
	}
	if html := string(cells["contents:html"]); strings.Contains(html, "/p/1") || !strings.Contains(html, `id="app"`) {
		t.Errorf("contents:html of %s is not the served shell:\n%s", u, html)
	}
	if dom := string(cells[webtable.RenderedColumn]); !strings.Contains(dom, `href="/p/1"`) {
		t.Errorf("%s of %s lacks the link its script built:\n%s", webtable.RenderedColumn, u, dom)
	}
	if png := cells[webtable.ScreenshotColumn]; !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("%s of %s is %d bytes, not a PNG", webtable.ScreenshotColumn, u, len(png))
	}
	var rec struct {
		Rendered bool  `json:"rendered"`
		RenderMS int64 `json:"render_ms"`
	}
	if err := json.Unmarshal(cells[webtable.FetchRecordColumn], &rec); err != nil || !rec.Rendered || rec.RenderMS <= 0 {
		t.Errorf("fetch:record of %s = %s, want rendered and a render time", u, cells[webtable.FetchRecordColumn])
	}
}

// fetchError is the error of the fetch record of row key in db.
func fetchError(t *testing.T, db, key string) string {
	t.Helper()
	w, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	row, err := w.Get(context.Background(), key, webtable.Query{Family: webtable.FamilyFetch})
	if err != nil {
		return err.Error()
	}
	f, err := webtable.FetchOf(row)
	if err != nil {
		return err.Error()
	}
	return "error " + strconv.Quote(f.Error)
}

func mustKey(t *testing.T, u string) string {
	t.Helper()
	k, err := urlkey.Key(u)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestRenderFlags maps the render flags and refuses what cannot work.
func TestRenderFlags(t *testing.T) {
	o, err := parseFlags([]string{"--render", "auto", "--render-tabs", "3", "--render-timeout", "5s", "--screenshots", "http://a.test/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.Render != crawler.RenderAuto || !o.cfg.Screenshots || o.render.tabs != 3 || o.render.timeout != 5*time.Second || o.render.exec != render.DefaultExec {
		t.Errorf("render flags = mode %v screenshots %v %+v", o.cfg.Render, o.cfg.Screenshots, o.render)
	}
	for _, args := range [][]string{
		{"--render", "sometimes"},
		{"--screenshots"},
		{"--render", "always", "--render-tabs", "0"},
		{"--render", "always", "--render-timeout", "0s"},
	} {
		if _, err := parseFlags(append(args, "http://a.test/"), io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted it", args)
		}
	}
}
