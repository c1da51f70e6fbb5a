package webui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// stamp is a timestamp of the table's own type, whatever it is, at
// 2023-11-14 (FrontierTime is 1 ms).
const stamp = webtable.FrontierTime * 1_700_000_000_000

// hostile is a stored page that tries everything a page can do to its
// viewer.
const hostile = `<!DOCTYPE html><html><head><base href="http://attacker.test/">
<meta http-equiv="refresh" content="0;url=http://attacker.test/">
<title>Evil</title><script>parent.location="http://attacker.test/"</script></head>
<body><p>visible text</p>
<a href="javascript:alert(1)">js link</a>
<a href="/next">next</a></iframe><script>alert("x")</script>
<form action="http://attacker.test/steal" method="post"><input name=a></form>
<svg><script>alert(2)</script></svg><img src="http://attacker.test/pixel.png">
<p>broken \xff\xfe utf-8</p></body></html>`

// fixture writes a small WebTable: www.cnn.com/ with two versions and two
// anchors, a hostile page linking to it with hostile anchor texts, a
// failed URL, an SVG stored as itself, and n plain pages of example.org.
func fixture(t testing.TB, n int) *webtable.WebTable {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "webtable.db")
	w, err := stores.Open(ctx, dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { w.Close() })
	store := func(url, mime string, at time.Time, body string) {
		t.Helper()
		p := &webtable.Page{Fetch: crawlstore.Fetch{URL: url, Status: 200, Time: at, Length: int64(len(body)), Charset: "utf-8"},
			MIME: mime, KeepBody: true, Body: []byte(body)}
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := w.SetState(ctx, url, crawlstore.StateDone, stamp); err != nil {
			t.Fatal(err)
		}
	}
	link := func(from, to, text string) {
		t.Helper()
		if _, err := w.AddLinks(ctx, from, []webtable.Anchor{{URL: to, Text: text}}, nil, stamp); err != nil {
			t.Fatal(err)
		}
	}
	store("http://www.cnn.com/", "text/html", t0, "<title>CNN</title><h1>News</h1><p>old headline</p><p>same</p>")
	store("http://www.cnn.com/", "text/html", t0.Add(time.Hour), "<title>CNN</title><h1>News</h1><p>new headline</p><p>same</p>")
	store("http://cnnsi.com/", "text/html", t0, `<a href="http://www.cnn.com/">CNN</a>`)
	link("http://cnnsi.com/", "http://www.cnn.com/", "CNN")
	link("http://my.look.ca/", "http://www.cnn.com/", "CNN.com")
	store("http://evil.test/", "text/html", t0, hostile)
	link("http://evil.test/", "http://www.cnn.com/", `</td></iframe><script>alert("anchor")</script>`)
	link("http://evil.test/", "http://www.cnn.com/x", "bad \xff utf-8")
	store("http://evil.test/pic.svg", "image/svg+xml", t0, `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(3)</script></svg>`)
	failed := &webtable.Page{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/missing", Status: 404, Time: t0, Error: "HTTP 404 <b>Not Found</b>"}}
	if _, err := w.RecordFetch(ctx, failed); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, failed.Fetch.URL, crawlstore.StateFailed, stamp); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		store("http://www.example.org/p"+string(rune('a'+i)), "text/html", t0.Add(time.Duration(i)*time.Minute), "<p>page</p>")
	}
	return w
}

// serve starts the interface over w on an httptest server with the summary
// built.
func serve(t *testing.T, w *webtable.WebTable, opts Options) (*UI, *httptest.Server) {
	t.Helper()
	ui, err := New(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ui.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ui.WaitSummary(ctx); err != nil {
		t.Fatalf("summary: %v", err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	return ui, srv
}

// get fetches path and returns the response and its body.
func get(t *testing.T, srv *httptest.Server, path string, asJSON bool) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if asJSON {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// getJSON fetches path as JSON into v, failing unless the status is 200.
func getJSON(t *testing.T, srv *httptest.Server, path string, v any) {
	t.Helper()
	resp, body := get(t, srv, path, true)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET %s as JSON: %s %s\n%s", path, resp.Status, resp.Header.Get("Content-Type"), body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

func httptestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func jsonDecode(rec *httptest.ResponseRecorder, v any) error {
	return json.Unmarshal(rec.Body.Bytes(), v)
}
