package crawlertest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/webtable/webtable/crawlstore"
)

// The cases of StoreContract about fetches: LastFetch, SavePage (done
// pages, discovered links, versions, 304s, failures, redirects, both
// schemes, repeats and concurrent saves) and Content.

func testLastFetchUnknown(t *testing.T, s crawlstore.Store) {
	if _, ok := last(t, s, "http://www.cnn.com/"); ok {
		t.Error("LastFetch of an unknown URL: ok = true")
	}
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/"})
	if _, ok := last(t, s, "http://www.cnn.com/"); ok {
		t.Error("LastFetch of a queued, never fetched URL: ok = true")
	}
}

func testSaveDone(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 0})
	p := html("http://www.cnn.com/", at(1), "<p>one</p>")
	if res := save(t, s, p); !res.NewVersion {
		t.Error("first SavePage with a body: NewVersion = false")
	}
	f, ok := last(t, s, "http://www.cnn.com/")
	if !ok {
		t.Fatal("LastFetch after SavePage: ok = false")
	}
	if f.State != crawlstore.StateDone || f.Status != 200 || f.SHA256 != p.SHA256 || f.ETag != p.ETag ||
		f.LastModified != p.LastModified || !f.Time.Equal(p.Time) || f.URL != p.URL ||
		f.MediaType != "text/html" || f.Charset != "utf-8" {
		t.Errorf("LastFetch = %+v, want done, 200, sha %s, etag %s, time %v, url %s, text/html, utf-8", f, p.SHA256, p.ETag, p.Time, p.URL)
	}
	if q := queued(t, s); len(q) != 0 {
		t.Errorf("Queued after the only page is done = %v, want none", q)
	}
	if st := enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/"}); st[0] != crawlstore.StateDone {
		t.Errorf("Enqueue of a done page = %v, want done", st[0])
	}
}

func testSaveDiscovered(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://done.example/"})
	save(t, s, html("http://done.example/", at(1), "x"))
	enqueue(t, s, crawlstore.Entry{URL: "http://queued.example/", Depth: 1})

	p := html("http://www.cnn.com/", at(2), "<a>")
	p.Depth = 1
	p.Links = []crawlstore.Link{
		{URL: "http://new.example/", Text: "new"},
		{URL: "http://done.example/", Text: "done"},
		{URL: "http://queued.example/", Text: "queued"},
		{URL: "http://nofollow.example/", Text: "nf", NoFollow: true},
	}
	p.Discovered = []crawlstore.Entry{
		{URL: "http://new.example/", Depth: 2},
		{URL: "http://done.example/", Depth: 2},
		{URL: "http://queued.example/", Depth: 2},
	}
	res := save(t, s, p)
	want := []crawlstore.State{crawlstore.StateNone, crawlstore.StateDone, crawlstore.StateQueued}
	if !slices.Equal(res.States, want) {
		t.Errorf("SavePage states = %v, want %v", res.States, want)
	}
	got := queued(t, s)
	wantQ := map[string]int{"http://new.example/": 2, "http://queued.example/": 1}
	if fmt.Sprint(got) != fmt.Sprint(wantQ) {
		t.Errorf("Queued = %v, want %v (nofollow links are anchors, not entries)", got, wantQ)
	}
}

func testNewVersion(t *testing.T, s crawlstore.Store) {
	for i, tc := range []struct {
		body string
		want bool
	}{{"v1", true}, {"v1", false}, {"v2", true}, {"v2", false}, {"v1", true}} {
		res := save(t, s, html("http://www.cnn.com/", at(i+1), tc.body))
		if res.NewVersion != tc.want {
			t.Errorf("save %d (%q): NewVersion = %v, want %v", i, tc.body, res.NewVersion, tc.want)
		}
	}
	f, _ := last(t, s, "http://www.cnn.com/")
	if f.SHA256 != crawlstore.SHA256Hex([]byte("v1")) || !f.Time.Equal(at(5)) {
		t.Errorf("LastFetch = %+v, want sha of v1 at %v", f, at(5))
	}
	p := html("http://www.cnn.com/", at(6), "")
	p.Body, p.SHA256, p.MediaType = nil, "", "application/pdf"
	if res := save(t, s, p); res.NewVersion {
		t.Error("SavePage without a body: NewVersion = true")
	}
}

func testNotModified(t *testing.T, s crawlstore.Store) {
	p := html("http://www.cnn.com/", at(1), "v1")
	save(t, s, p)
	nm := &crawlstore.Page{URL: p.URL, FinalURL: p.URL, Time: at(2), Status: 304, NotModified: true, ETag: p.ETag}
	if res := save(t, s, nm); res.NewVersion {
		t.Error("SavePage of a 304: NewVersion = true")
	}
	f, _ := last(t, s, p.URL)
	if f.SHA256 != p.SHA256 || f.Status != 304 || !f.Time.Equal(at(2)) || f.State != crawlstore.StateDone || f.ETag != p.ETag {
		t.Errorf("LastFetch after 304 = %+v, want content sha kept, status 304, time %v, done", f, at(2))
	}
}

func content(t *testing.T, s crawlstore.Store, url string) (string, bool) {
	t.Helper()
	b, ok, err := s.Content(ctx, keyOf(t, url))
	if err != nil {
		t.Fatalf("Content(%s): %v", url, err)
	}
	return string(b), ok
}

func testContent(t *testing.T, s crawlstore.Store) {
	const u = "http://www.cnn.com/"
	if _, ok := content(t, s, u); ok {
		t.Error("Content of an unknown URL: ok = true")
	}
	save(t, s, html(u, at(1), "v1"))
	save(t, s, html(u, at(2), "v2"))
	if got, ok := content(t, s, u); !ok || got != "v2" {
		t.Errorf("Content = %q, %v; want v2", got, ok)
	}
	save(t, s, &crawlstore.Page{URL: u, FinalURL: u, Time: at(3), Status: 304, NotModified: true})
	failed := &crawlstore.Page{URL: u, FinalURL: u, Time: at(4), Err: "refused", ErrKind: crawlstore.KindNetwork}
	save(t, s, failed)
	if got, ok := content(t, s, "https://www.cnn.com/"); !ok || got != "v2" {
		t.Errorf("Content after a 304 and a failure = %q, %v; want v2 still", got, ok)
	}
}

func testFailed(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/x"})
	p := &crawlstore.Page{URL: "http://www.cnn.com/x", FinalURL: "http://www.cnn.com/x", Time: at(1), Status: 404,
		Err: "http status 404 Not Found", ErrKind: crawlstore.KindHTTP}
	save(t, s, p)
	f, ok := last(t, s, p.URL)
	if !ok || f.State != crawlstore.StateFailed || f.Status != 404 {
		t.Errorf("LastFetch after a failure = %+v, %v; want failed, 404", f, ok)
	}
	if q := queued(t, s); len(q) != 0 {
		t.Errorf("a failed page is still queued: %v", q)
	}
	if st := enqueue(t, s, crawlstore.Entry{URL: p.URL}); st[0] != crawlstore.StateFailed {
		t.Errorf("Enqueue of a failed page = %v, want failed", st[0])
	}
}

func testRedirect(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://cnn.com/"})
	p := html("http://cnn.com/", at(1), "home")
	p.FinalURL, p.Redirected = "http://www.cnn.com/", true
	if res := save(t, s, p); !res.NewVersion {
		t.Error("redirected SavePage with a body: NewVersion = false")
	}
	tf, ok := last(t, s, "http://www.cnn.com/")
	if !ok || tf.SHA256 != p.SHA256 || tf.State != crawlstore.StateDone || tf.URL != "http://www.cnn.com/" {
		t.Errorf("target LastFetch = %+v, %v; want the content, done, url http://www.cnn.com/", tf, ok)
	}
	sf, ok := last(t, s, "http://cnn.com/")
	if !ok || sf.State != crawlstore.StateDone {
		t.Errorf("source LastFetch = %+v, %v; want done", sf, ok)
	}
	if sf.SHA256 == p.SHA256 {
		t.Errorf("source row holds the content (sha %s); it belongs to the target", sf.SHA256)
	}
	if q := queued(t, s); len(q) != 0 {
		t.Errorf("Queued after a redirect = %v, want none", q)
	}
}

func testLocation(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/old"})
	p := &crawlstore.Page{URL: "http://www.cnn.com/old", FinalURL: "http://www.cnn.com/old", Time: at(1),
		Status: 301, Location: "http://www.cnn.com/new"}
	if res := save(t, s, p); res.NewVersion {
		t.Error("SavePage of an unfollowed redirect: NewVersion = true")
	}
	f, ok := last(t, s, p.URL)
	if !ok || f.State != crawlstore.StateDone || f.Status != 301 {
		t.Errorf("LastFetch = %+v, %v; want done, 301", f, ok)
	}
	if _, ok := last(t, s, p.Location); ok {
		t.Error("the target of an unfollowed redirect has a fetch record; its row must be left alone")
	}
	if st := enqueue(t, s, crawlstore.Entry{URL: p.Location}); st[0] != crawlstore.StateNone {
		t.Errorf("Enqueue of the unfollowed target = %v, want none (unknown)", st[0])
	}
}

func testSchemes(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/"})
	if st := enqueue(t, s, crawlstore.Entry{URL: "https://www.cnn.com/"}); st[0] != crawlstore.StateQueued {
		t.Errorf("Enqueue(https) after Enqueue(http) = %v, want queued (one row key)", st[0])
	}
	p := html("https://www.cnn.com/", at(1), "x")
	save(t, s, p)
	f, ok := last(t, s, "http://www.cnn.com/")
	if !ok || f.URL != "https://www.cnn.com/" {
		t.Errorf("LastFetch(http) = %+v, %v; want the https fetch", f, ok)
	}
}

func testIdempotent(t *testing.T, s crawlstore.Store) {
	p := html("http://www.cnn.com/", at(1), "x")
	p.Links = []crawlstore.Link{{URL: "http://cnnsi.com/", Text: "SI"}}
	p.Discovered = []crawlstore.Entry{{URL: "http://cnnsi.com/", Depth: 1}}
	first := save(t, s, p)
	again := save(t, s, p)
	if first.States[0] != crawlstore.StateNone || again.States[0] != crawlstore.StateQueued {
		t.Errorf("states = %v then %v, want none then queued", first.States, again.States)
	}
	if again.NewVersion {
		t.Error("saving the same page twice stored a second version")
	}
}

func testConcurrent(t *testing.T, s crawlstore.Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := html(fmt.Sprintf("http://www.cnn.com/%d", i), at(i), fmt.Sprint(i))
			p.Links = []crawlstore.Link{{URL: "http://shared.example/", Text: "s"}}
			p.Discovered = []crawlstore.Entry{{URL: "http://shared.example/", Depth: 1}, {URL: fmt.Sprintf("http://own.example/%d", i), Depth: 1}}
			if _, err := s.SavePage(ctx, p); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent SavePage: %v", err)
	}
	if q := queued(t, s); len(q) != n+1 {
		t.Errorf("Queued holds %d entries after %d concurrent saves, want %d", len(q), n, n+1)
	}
}
