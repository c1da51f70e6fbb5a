// Package crawlertest checks implementations of [crawlstore.Store] against
// the contract written on that interface, and holds [MemStore], the
// in-memory Store the crawler's tests use. Every Store runs the same
// suite: MemStore in this package's tests, webtable.CrawlStore (on the
// embedded store and on Cloud Bigtable's emulator) in webtable's.
//
//	func TestStore(t *testing.T) {
//		crawlertest.StoreContract(t, func(t *testing.T) crawlstore.Store { return open(t) })
//	}
//
// # Caveats
//
// The suite sees a store only through the interface: it cannot check that
// anchors were written (Store has no call to read them) or the order of
// writes inside SavePage. Test those against the implementation's own rows.
package crawlertest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// StoreContract runs the Store contract suite, each case on a fresh store
// from newStore.
func StoreContract(t *testing.T, newStore func(t *testing.T) crawlstore.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s crawlstore.Store)
	}{
		{"EnqueueReportsPriorStates", testEnqueue},
		{"QueuedListsDepths", testQueued},
		{"HostsStopsEarly", testQueuedStop},
		{"HostsByShard", testHostsByShard},
		{"NextInOrderOfDiscovery", testNextInOrder},
		{"RequeueFailedOncePerRun", testRequeue},
		{"HostPagesCountsDone", testHostPages},
		{"LastFetchUnknown", testLastFetchUnknown},
		{"SavePageMarksDone", testSaveDone},
		{"SavePageQueuesDiscovered", testSaveDiscovered},
		{"NewVersionOnlyWhenHashChanges", testNewVersion},
		{"NotModifiedKeepsContent", testNotModified},
		{"ContentIsTheNewestVersion", testContent},
		{"FailedFetch", testFailed},
		{"RedirectBetweenKeys", testRedirect},
		{"RedirectNotFollowed", testLocation},
		{"SchemesShareARow", testSchemes},
		{"SavePageIsIdempotent", testIdempotent},
		{"ConcurrentSaves", testConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var ctx = context.Background()

// at is a fetch time in whole milliseconds.
func at(sec int) time.Time { return time.Date(2026, 11, 30, 6, 0, sec, 0, time.UTC) }

func html(url string, t time.Time, body string) *crawlstore.Page {
	p := &crawlstore.Page{
		URL: url, FinalURL: url, Time: t, Status: 200,
		MediaType: "text/html", Charset: "utf-8", ETag: `"e-` + body + `"`,
		LastModified: "Mon, 30 Nov 2026 06:00:00 GMT",
		Body:         []byte(body), Length: int64(len(body)),
	}
	p.SHA256 = crawlstore.SHA256Hex(p.Body)
	return p
}

func enqueue(t *testing.T, s crawlstore.Store, es ...crawlstore.Entry) []crawlstore.State {
	t.Helper()
	st, err := s.Enqueue(ctx, es, crawlstore.Requeue{})
	if err != nil {
		t.Fatalf("Enqueue(%v): %v", es, err)
	}
	if len(st) != len(es) {
		t.Fatalf("Enqueue(%d entries) returned %d states", len(es), len(st))
	}
	return st
}

func save(t *testing.T, s crawlstore.Store, p *crawlstore.Page) crawlstore.SaveResult {
	t.Helper()
	res, err := s.SavePage(ctx, p)
	if err != nil {
		t.Fatalf("SavePage(%s): %v", p.URL, err)
	}
	if len(res.States) != len(p.Discovered) {
		t.Fatalf("SavePage(%s) returned %d states for %d discovered", p.URL, len(res.States), len(p.Discovered))
	}
	return res
}

func last(t *testing.T, s crawlstore.Store, url string) (crawlstore.Fetch, bool) {
	t.Helper()
	f, ok, err := s.LastFetch(ctx, keyOf(t, url))
	if err != nil {
		t.Fatalf("LastFetch(%s): %v", url, err)
	}
	return f, ok
}

// queued reads the whole frontier through Hosts and Next, a few entries at
// a time, and returns each URL's depth.
func queued(t *testing.T, s crawlstore.Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	var hosts []string
	if err := s.Hosts(ctx, 0, 0, func(h string) bool { hosts = append(hosts, h); return true }); err != nil {
		t.Fatalf("Hosts: %v", err)
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if seen[h] {
			t.Errorf("Hosts listed %s twice", h)
		}
		seen[h] = true
		from := ""
		for {
			b, err := s.Next(ctx, h, from, 2)
			if err != nil {
				t.Fatalf("Next(%s, %q): %v", h, from, err)
			}
			for _, e := range b.Entries {
				if e.Frontier == "" || e.Key == "" || e.Frontier < from {
					t.Errorf("Next(%s, %q) returned %+v: want its frontier position (at or after from) and row key", h, from, e)
				}
				out[e.URL] = e.Depth
			}
			if !b.More {
				break
			}
			if b.Next <= from {
				t.Fatalf("Next(%s, %q) did not move forward (next %q)", h, from, b.Next)
			}
			from = b.Next
		}
	}
	return out
}

func testEnqueue(t *testing.T, s crawlstore.Store) {
	got := enqueue(t, s,
		crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 0},
		crawlstore.Entry{URL: "http://cnnsi.com/", Depth: 1},
		crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 2},
	)
	want := []crawlstore.State{crawlstore.StateNone, crawlstore.StateNone, crawlstore.StateQueued}
	if !slices.Equal(got, want) {
		t.Errorf("first Enqueue states = %v, want %v", got, want)
	}
	got = enqueue(t, s, crawlstore.Entry{URL: "http://cnnsi.com/", Depth: 3}, crawlstore.Entry{URL: "http://my.look.ca/", Depth: 1})
	want = []crawlstore.State{crawlstore.StateQueued, crawlstore.StateNone}
	if !slices.Equal(got, want) {
		t.Errorf("second Enqueue states = %v, want %v", got, want)
	}
}

func testQueued(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/", Depth: 0}, crawlstore.Entry{URL: "http://www.cnn.com/a.html", Depth: 2})
	enqueue(t, s, crawlstore.Entry{URL: "http://www.cnn.com/a.html", Depth: 1}) // known: depth unchanged
	got := queued(t, s)
	want := map[string]int{"http://www.cnn.com/": 0, "http://www.cnn.com/a.html": 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Queued = %v, want %v", got, want)
	}
}

func testQueuedStop(t *testing.T, s crawlstore.Store) {
	enqueue(t, s, crawlstore.Entry{URL: "http://a.example/"}, crawlstore.Entry{URL: "http://b.example/"}, crawlstore.Entry{URL: "http://c.example/"})
	n := 0
	if err := s.Hosts(ctx, 0, 1, func(string) bool { n++; return false }); err != nil {
		t.Fatalf("Hosts: %v", err)
	}
	if n != 1 {
		t.Errorf("Hosts called fn %d times after it returned false, want 1", n)
	}
}

// testHostsByShard: each host is listed for the shard ShardOf names, and
// only for it.
func testHostsByShard(t *testing.T, s crawlstore.Store) {
	var es []crawlstore.Entry
	for i := range 20 {
		es = append(es, crawlstore.Entry{URL: fmt.Sprintf("http://h%02d.example/", i)})
	}
	enqueue(t, s, es...)
	const shards = 3
	total := 0
	for shard := range shards {
		err := s.Hosts(ctx, shard, shards, func(h string) bool {
			total++
			if got := crawlstore.ShardOf(h, shards); got != shard {
				t.Errorf("Hosts(shard %d of %d) listed %s, of shard %d", shard, shards, h, got)
			}
			return true
		})
		if err != nil {
			t.Fatalf("Hosts: %v", err)
		}
	}
	if total != len(es) {
		t.Errorf("the shards listed %d hosts in all, want %d", total, len(es))
	}
}

// testNextInOrder: a host's entries come back in order of discovery, and
// the entry of a page saved with its position is gone.
func testNextInOrder(t *testing.T, s crawlstore.Store) {
	es := []crawlstore.Entry{{URL: "http://a.example/3"}, {URL: "http://a.example/1"}, {URL: "http://a.example/2"}}
	enqueue(t, s, es...)
	b, err := s.Next(ctx, "a.example", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range b.Entries {
		got = append(got, e.URL)
	}
	if want := []string{"http://a.example/3", "http://a.example/1", "http://a.example/2"}; !slices.Equal(got, want) || b.More {
		t.Fatalf("Next = %v (more %v), want %v in order of discovery, no more", got, b.More, want)
	}
	p := html(b.Entries[0].URL, at(1), "x")
	p.Frontier = b.Entries[0].Frontier
	save(t, s, p)
	if q := queued(t, s); len(q) != 2 || q["http://a.example/3"] != 0 && len(q) != 2 {
		t.Errorf("frontier after saving /3 = %v, want /1 and /2", q)
	}
	if _, ok := queued(t, s)["http://a.example/3"]; ok {
		t.Error("the saved page's entry is still in the frontier")
	}
}

// testRequeue: a failed URL is queued again when met by a later run, once.
func testRequeue(t *testing.T, s crawlstore.Store) {
	p := &crawlstore.Page{URL: "http://a.example/x", FinalURL: "http://a.example/x", Time: at(1), Status: 500, Err: "500", ErrKind: crawlstore.KindHTTP}
	save(t, s, p)
	rq := crawlstore.Requeue{Failed: true, Before: at(1)}
	es := []crawlstore.Entry{{URL: p.URL, Depth: 1}}
	if st, _ := s.Enqueue(ctx, es, rq); st[0] != crawlstore.StateFailed || es[0].Frontier != "" {
		t.Errorf("Enqueue in the run of the failure = %v, frontier %q; want failed, not queued", st, es[0].Frontier)
	}
	rq.Before = at(2)
	if st, _ := s.Enqueue(ctx, es, rq); st[0] != crawlstore.StateFailed || es[0].Frontier == "" {
		t.Errorf("Enqueue in a later run = %v, frontier %q; want failed, queued again", st, es[0].Frontier)
	}
	es = []crawlstore.Entry{{URL: p.URL, Depth: 1}}
	if st, _ := s.Enqueue(ctx, es, rq); st[0] != crawlstore.StateQueued || es[0].Frontier != "" {
		t.Errorf("Enqueue once more = %v, frontier %q; want queued, no second entry", st, es[0].Frontier)
	}
	if q := queued(t, s); len(q) != 1 {
		t.Errorf("frontier = %v, want the failed URL once", q)
	}
}

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

// testHostPages: each page marked done counts once for its host, however
// often it was fetched; failures and other hosts do not count; the count
// stops at the limit.
func testHostPages(t *testing.T, s crawlstore.Store) {
	for i := range 3 {
		save(t, s, html(fmt.Sprintf("http://a.example/%d", i), at(1), "x"))
	}
	save(t, s, html("http://a.example/0", at(2), "y"))
	save(t, s, html("http://b.example/0", at(1), "x"))
	save(t, s, &crawlstore.Page{URL: "http://a.example/bad", FinalURL: "http://a.example/bad", Time: at(1), Status: 500, Err: "500", ErrKind: crawlstore.KindHTTP})
	for _, tc := range []struct {
		host        string
		limit, want int
	}{{"a.example", 10, 3}, {"a.example", 2, 2}, {"b.example", 10, 1}, {"c.example", 10, 0}} {
		n, err := s.HostPages(ctx, tc.host, tc.limit)
		if err != nil || n != tc.want {
			t.Errorf("HostPages(%s, %d) = %d, %v; want %d", tc.host, tc.limit, n, err, tc.want)
		}
	}
}

// keyOf is the row key of url, as the crawler hands it to LastFetch and
// Content.
func keyOf(t *testing.T, url string) string {
	t.Helper()
	k, err := urlkey.Key(url)
	if err != nil {
		t.Fatalf("urlkey.Key(%s): %v", url, err)
	}
	return k
}
