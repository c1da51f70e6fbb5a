package webtable

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// The generator of old stores: each old form written through the bigtable
// API as the code of its time left it, for the tests of Migrate. A store
// opened by openTemp is in FormatNewest; asOriginal makes it one written
// before format versions existed.

// asOriginal deletes the format version row, as a store written before
// versions existed has none.
func asOriginal(t *testing.T, w *WebTable) {
	t.Helper()
	m := bigtable.NewMutation()
	m.DeleteRow()
	if err := w.tbl.Apply(context.Background(), FormatKey, m); err != nil {
		t.Fatal(err)
	}
}

// setFormat writes format version v.
func setFormat(t *testing.T, w *WebTable, v FormatVersion) {
	t.Helper()
	if err := writeFormat(context.Background(), w.tbl, v); err != nil {
		t.Fatal(err)
	}
}

// migrateAll runs Migrate, failing the test on an error, and returns the
// rows each step wrote and the keys of the rows reported bad.
func migrateAll(t *testing.T, w *WebTable) (rows map[FormatVersion]int, bad []string) {
	t.Helper()
	rows = map[FormatVersion]int{}
	_, err := w.Migrate(context.Background(), func(s MigrateStep) { rows[s.To] = s.Rows }, func(b BadEntry) { bad = append(bad, b.Key) })
	if err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	if v, err := w.Format(context.Background()); v != FormatNewest || err != nil {
		t.Fatalf("Format after Migrate = %d, %v; want %d", v, err, FormatNewest)
	}
	return rows, bad
}

// oldFormContents writes the version of p's body as a store before
// FormatContentsMeta holds it: contents:html, sha256, status, url,
// headers (when there are some) and truncated ("true", when cut), each a
// cell at the fetch's time.
func oldFormContents(t *testing.T, w *WebTable, key string, p *Page) {
	t.Helper()
	m := bigtable.NewMutation()
	ts := timestamp(p.Fetch.Time)
	m.Set(FamilyContents, colHTML, ts, p.Body)
	m.Set(FamilyContents, colSHA256, ts, []byte(sha256Hex(p.Body)))
	m.Set(FamilyContents, colStatus, ts, []byte(strconv.Itoa(p.Fetch.Status)))
	m.Set(FamilyContents, colFetched, ts, []byte(p.Fetch.URL))
	if len(p.Headers) > 0 {
		m.Set(FamilyContents, colHeaders, ts, p.Headers)
	}
	if p.Fetch.Truncated {
		m.Set(FamilyContents, colTruncated, ts, []byte("true"))
	}
	if p.MIME != "" {
		m.Set(FamilyMIME, "type", ts, []byte(p.MIME))
	}
	if err := w.tbl.Apply(context.Background(), key, m); err != nil {
		t.Fatal(err)
	}
}

// oldFormQueuedRow writes a page queued before FormatFrontierRows: known by
// its row only, fetch:url, fetch:depth and fetch:state queued at
// FrontierTime.
func oldFormQueuedRow(t *testing.T, w *WebTable, key, url, depth string) {
	t.Helper()
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colURL, FrontierTime, []byte(url))
	m.Set(FamilyFetch, colDepth, FrontierTime, []byte(depth))
	m.Set(FamilyFetch, colState, FrontierTime, []byte(crawlstore.StateQueued.String()))
	if err := w.tbl.Apply(context.Background(), key, m); err != nil {
		t.Fatal(err)
	}
}

// oldFormEntry writes a frontier entry before FormatEntryCell: fetch:url,
// fetch:depth and, when not "", fetch:chain, at FrontierTime.
func oldFormEntry(t *testing.T, w *WebTable, key, url, depth, chain string) {
	t.Helper()
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colURL, FrontierTime, []byte(url))
	m.Set(FamilyFetch, colDepth, FrontierTime, []byte(depth))
	if chain != "" {
		m.Set(FamilyFetch, colChain, FrontierTime, []byte(chain))
	}
	if err := w.tbl.Apply(context.Background(), key, m); err != nil {
		t.Fatal(err)
	}
}

// setMarker writes the frontier marker, as the frontier migration before
// format versions did.
func setMarker(t *testing.T, w *WebTable) {
	t.Helper()
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, "frontier", FrontierTime, []byte("v1"))
	if err := w.tbl.Apply(context.Background(), FrontierMarkerKey, m); err != nil {
		t.Fatal(err)
	}
}

// A small crawl, written in the current form by writeCurrent and in the
// old forms by writeOld: two fetches of the home page (two versions, one
// truncated with headers), a failed fetch, two pages queued on www.cnn.com
// and two on a.test (one with a chain).
var (
	corpusFetches = []*Page{
		{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/", Status: 200, Time: t0, Length: 6, Charset: "utf-8", ETag: `"a1"`, Truncated: true, Depth: 0, Links: 4, LinksKept: 3},
			MIME: "text/html", KeepBody: true, Body: []byte("<p>one"), Headers: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")},
		{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/", Status: 203, Time: t0.Add(time.Hour), Length: 6, LastModified: "Mon, 30 Nov 2026 11:00:00 GMT", Depth: 0, Links: 2, LinksKept: 2},
			MIME: "text/html", KeepBody: true, Body: []byte("<p>two")},
		{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/gone", Time: t0.Add(2 * time.Hour), Error: "connection refused", Depth: 1}},
	}
	corpusStates = map[string]crawlstore.State{"http://www.cnn.com/": crawlstore.StateDone, "http://www.cnn.com/gone": crawlstore.StateFailed}
	// corpusQueued: the first two are queued in their rows only in an
	// old store without the marker; the last two have three-cell entries.
	corpusQueued = []crawlstore.Entry{
		{URL: "http://www.cnn.com/a", Depth: 1},
		{URL: "http://www.cnn.com/b", Depth: 2},
		{URL: "http://a.test/1", Depth: 4},
		{URL: "http://a.test/2", Depth: 5, Chain: 2},
	}
)

// writeCurrent writes the corpus through the WebTable's API.
func writeCurrent(t *testing.T, w *WebTable) {
	t.Helper()
	ctx := context.Background()
	for _, p := range corpusFetches {
		p := *p
		if _, err := w.RecordFetch(ctx, &p); err != nil {
			t.Fatal(err)
		}
		if err := w.SetState(ctx, p.Fetch.URL, corpusStates[p.Fetch.URL], timestamp(p.Fetch.Time)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Enqueue(ctx, slices.Clone(corpusQueued), crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
}

// writeOld writes the corpus as a store before format versions could hold
// it, every old form at once: fetch records a column per field, contents
// facts a cell each, and the queued pages in rows only (marker false: the
// frontier before FormatFrontierRows) or all with three-cell entries and
// the marker (marker true).
func writeOld(t *testing.T, w *WebTable, marker bool) {
	t.Helper()
	ctx := context.Background()
	for _, p := range corpusFetches {
		key := mustKey(t, p.Fetch.URL)
		if p.KeepBody {
			oldFormContents(t, w, key, p)
		}
		f := p.Fetch
		f.State = corpusStates[f.URL]
		oldFormFetch(t, w, key, f)
	}
	for i, e := range corpusQueued {
		key := mustKey(t, e.URL)
		if !marker && i < 2 {
			oldFormQueuedRow(t, w, key, e.URL, strconv.Itoa(e.Depth))
			continue
		}
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colState, FrontierTime, []byte(crawlstore.StateQueued.String()))
		if err := w.tbl.Apply(ctx, key, m); err != nil {
			t.Fatal(err)
		}
		chain := ""
		if e.Chain != 0 {
			chain = strconv.Itoa(e.Chain)
		}
		u, err := urlkey.Canonical(e.URL)
		if err != nil {
			t.Fatal(err)
		}
		oldFormEntry(t, w, FrontierEntryKey(u.Host, uint64(i+1), 7), e.URL, strconv.Itoa(e.Depth), chain)
	}
	if marker {
		setMarker(t, w)
	}
	asOriginal(t, w)
}

// dumpCells lists every cell of the rows rs holds, sorted, one a line: row,
// column, timestamp and value.
func dumpCells(t *testing.T, w *WebTable, rs bigtable.RowSet) []string {
	t.Helper()
	var out []string
	err := w.tbl.ReadRows(context.Background(), rs, func(r bigtable.Row) bool {
		for _, items := range r {
			for _, it := range items {
				out = append(out, fmt.Sprintf("%s %s@%d = %q", r.Key(), it.Column, it.Timestamp, it.Value))
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// queuedList is what Queued lists, frontier keys left out (a migration
// and a crawl number entries differently).
func queuedList(t *testing.T, w *WebTable) []string {
	t.Helper()
	var out []string
	if err := w.Queued(context.Background(), func(e crawlstore.Entry) bool {
		e.Frontier = ""
		out = append(out, fmt.Sprintf("%+v", e))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// privateQueued are pages queued on private hosts (an IP address with a
// port, localhost without one, an IPv6 loopback) and on a public one; the
// store before FormatPrivateSeeds recorded no address for them.
var privateQueued = []crawlstore.Entry{
	{URL: "http://127.0.0.1:8080/a", Depth: 1},
	{URL: "http://127.0.0.1:8080/b", Depth: 1},
	{URL: "http://localhost/", Depth: 0},
	{URL: "https://[::1]:9443/x", Depth: 2},
	{URL: "http://10.0.0.5/intranet", Depth: 1},
	{URL: "http://www.cnn.com/", Depth: 0},
}

// privateQueuedAddrs are the dial addresses of privateQueued's private
// hosts, sorted: localhost without a port is dialled on both.
var privateQueuedAddrs = []string{"10.0.0.5:443", "10.0.0.5:80", "127.0.0.1:8080", "[::1]:9443", "localhost:443", "localhost:80"}

// writeBeforePrivateSeeds writes privateQueued into a store of the
// version before FormatPrivateSeeds; recorded adds the column colRecorded
// (and the address of one seed), as a crawl of that version left a store
// it ran on.
func writeBeforePrivateSeeds(t *testing.T, w *WebTable, recorded bool) {
	t.Helper()
	ctx := context.Background()
	if _, err := w.Enqueue(ctx, slices.Clone(privateQueued), crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if recorded {
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colRecorded, FrontierTime, nil)
		m.Set(FamilyFetch, "127.0.0.1:8080", FrontierTime, nil)
		if err := w.tbl.Apply(ctx, PrivateSeedsKey, m); err != nil {
			t.Fatal(err)
		}
	}
	setFormat(t, w, FormatPrivateSeeds-1)
}

// privateSeedsOf returns the addresses the store records, sorted.
func privateSeedsOf(t *testing.T, w *WebTable) []string {
	t.Helper()
	addrs, err := w.PrivateSeeds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(addrs)
	return addrs
}
