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
