package webtable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// t0 is a fetch time in whole milliseconds.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func openTemp(t *testing.T) (*WebTable, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "webtable.db")
	w := openDir(t, dir, true, Options{})
	t.Cleanup(func() { w.Close() })
	return w, dir
}

// openDir opens the WebTable in the embedded store at dir, as
// internal/stores does (which these tests cannot import: it imports this
// package); with create false the store is opened read-only.
func openDir(t *testing.T, dir string, create bool, opts Options) *WebTable {
	t.Helper()
	if !create {
		opts.Store = append(opts.Store, bigtable.WithReadOnly(true))
	}
	db, err := bigtable.Open(dir, opts.Store...)
	if err != nil {
		t.Fatalf("bigtable.Open(%s): %v", dir, err)
	}
	w, err := New(context.Background(), db, db.Open(opts.table()), create, opts)
	if err != nil {
		t.Fatalf("New over %s: %v", dir, err)
	}
	return w
}

func htmlPage(url string, at time.Time, body string) *Page {
	return &Page{
		Fetch:    crawlstore.Fetch{URL: url, Status: 200, Time: at, Length: int64(len(body)), Charset: "utf-8", Depth: 1},
		MIME:     "text/html",
		KeepBody: true,
		Body:     []byte(body),
	}
}

func TestRecordFetchStoresAVersionOnlyWhenContentChanges(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	bodies := []string{"<p>one", "<p>one", "<p>two", "<p>three", "<p>four"}
	want := []Stored{NewVersion, Unchanged, NewVersion, NewVersion, NewVersion}
	for i, b := range bodies {
		got, err := w.RecordFetch(ctx, htmlPage("http://www.cnn.com/", t0.Add(time.Duration(i)*time.Minute), b))
		if err != nil {
			t.Fatalf("RecordFetch #%d: %v", i, err)
		}
		if got != want[i] {
			t.Errorf("RecordFetch #%d (%q) = %v, want %v", i, b, got, want[i])
		}
	}
	vs, err := w.Versions(ctx, "com.cnn.www/")
	if err != nil {
		t.Fatal(err)
	}
	// Four distinct bodies, three versions kept (DefaultVersions), newest first.
	var sizes []int
	var times []time.Time
	for _, v := range vs {
		sizes = append(sizes, v.Size)
		times = append(times, v.Timestamp.Time().UTC())
		if v.Status != 200 || len(v.SHA256) != 64 {
			t.Errorf("version %v: status %d sha256 %q, want 200 and 64 hex digits", v.Timestamp, v.Status, v.SHA256)
		}
	}
	wantTimes := []time.Time{t0.Add(4 * time.Minute), t0.Add(3 * time.Minute), t0.Add(2 * time.Minute)}
	if diff := cmp.Diff(wantTimes, times); diff != "" {
		t.Errorf("version times (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{7, 8, 6}, sizes); diff != "" {
		t.Errorf("version sizes (-want +got):\n%s", diff)
	}
	// The collected version's facts went with it.
	row, err := w.Get(ctx, "com.cnn.www/", Query{Family: FamilyContents, Versions: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(row.Cells); n != 9 {
		t.Errorf("contents family holds %d cells, want 9 (3 versions of html, sha256, meta)", n)
	}
}

func TestLastFetchRoundTrip(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	if _, ok, err := w.LastFetch(ctx, "http://www.cnn.com/"); ok || err != nil {
		t.Fatalf("LastFetch of an unknown URL = ok %v, err %v; want false, nil", ok, err)
	}
	p := htmlPage("https://www.cnn.com/", t0, "<p>hi")
	p.Fetch.ETag = `"abc"`
	p.Fetch.LastModified = "Mon, 30 Nov 2026 12:00:00 GMT"
	p.Fetch.Truncated = true
	p.Fetch.Depth = 2
	if _, err := w.RecordFetch(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, "https://www.cnn.com/", crawlstore.StateDone, bigtable.Time(t0)); err != nil {
		t.Fatal(err)
	}
	// http and https of a page share one row.
	got, ok, err := w.LastFetch(ctx, "http://www.cnn.com/")
	if err != nil || !ok {
		t.Fatalf("LastFetch = ok %v, err %v", ok, err)
	}
	want := p.Fetch
	want.State = crawlstore.StateDone
	sum := sha256.Sum256([]byte("<p>hi"))
	want.SHA256 = hex.EncodeToString(sum[:])
	want.MediaType = "text/html"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LastFetch (-want +got):\n%s", diff)
	}
}

func TestAddLinksWritesAnchorsAndQueuesOnlyNewURLs(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	ts := bigtable.Time(t0)
	// www.cnn.com/ is already done; sports is new.
	if _, err := w.Enqueue(ctx, []crawlstore.Entry{{URL: "http://www.cnn.com/", Depth: 0}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, "http://www.cnn.com/", crawlstore.StateDone, ts+1000); err != nil {
		t.Fatal(err)
	}
	anchors := []Anchor{
		{URL: "http://www.cnn.com/", Text: "CNN"},
		{URL: "https://www.cnn.com/", Text: "ignored: same row, second link"},
		{URL: "http://www.cnn.com/sports", Text: "Sports"},
	}
	discovered := []crawlstore.Entry{
		{URL: "http://www.cnn.com/", Depth: 1},
		{URL: "http://www.cnn.com/sports", Depth: 1},
		{URL: "https://www.cnn.com/sports", Depth: 1},
	}
	states, err := w.AddLinks(ctx, "http://cnnsi.com/", anchors, discovered, ts+2000)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]crawlstore.State{crawlstore.StateDone, crawlstore.StateNone, crawlstore.StateQueued}, states); diff != "" {
		t.Errorf("AddLinks prior states (-want +got):\n%s", diff)
	}
	row, err := w.Get(ctx, "com.cnn.www/", Query{Family: FamilyAnchor})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Cells) != 1 || row.Cells[0].Qualifier != "cnnsi.com" || string(row.Cells[0].Value) != "CNN" {
		t.Errorf("anchors of com.cnn.www/ = %+v, want anchor:cnnsi.com = CNN", row.Cells)
	}
	f, _, err := w.LastFetch(ctx, "http://www.cnn.com/")
	if err != nil || f.State != crawlstore.StateDone {
		t.Errorf("state of a done page after a new link to it = %q (err %v), want done", f.State, err)
	}
	var queued []crawlstore.Entry
	if err := w.Queued(ctx, func(e crawlstore.Entry) bool { queued = append(queued, e); return true }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]crawlstore.Entry{{URL: "http://www.cnn.com/sports", Depth: 1, Key: "com.cnn.www/sports"}}, queued, cmpopts.IgnoreFields(crawlstore.Entry{}, "Frontier")); diff != "" {
		t.Errorf("Queued (-want +got):\n%s", diff)
	}
}

// TestDataModelExample is the paper's example: versions at 15 and 4; a
// plain read sees the newest, a read as of 4 the older, as of 2 nothing.
func TestDataModelExample(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for _, v := range []struct {
		ms   int64
		body string
	}{{4, "m"}, {15, "y"}} {
		if _, err := w.RecordFetch(ctx, htmlPage("http://aaa.example/", time.UnixMilli(v.ms), v.body)); err != nil {
			t.Fatal(err)
		}
	}
	key := "example.aaa/"
	for _, tc := range []struct {
		name string
		at   bigtable.Timestamp
		want string
	}{
		{"plain read", 0, "y"},
		{"as of 4", 4000, "m"},
		{"as of 14.999", 14999, "m"},
		{"as of 15", 15000, "y"},
		{"as of 2", 2000, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row, err := w.Get(ctx, key, Query{Column: "contents:html", At: tc.at})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(row.Cells) > 0 {
				got = string(row.Cells[0].Value)
			}
			if got != tc.want || len(row.Cells) > 1 {
				t.Errorf("Get(%q, at %d) = %q (%d cells), want %q", key, tc.at, got, len(row.Cells), tc.want)
			}
		})
	}
}

func TestScanDomainAndKeysOnly(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for _, u := range []string{
		"http://www.cnn.com/", "http://cnn.com/", "http://cnn.com:8080/x", "http://edition.www.cnn.com/",
		"http://cnnsi.com/", "http://www.cnn-money.com/", "http://www.cnnx.com/", "http://my.look.ca/",
	} {
		if _, err := w.RecordFetch(ctx, htmlPage(u, t0, "<p>"+u)); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	err := w.Scan(ctx, urlkey.DomainRanges("cnn.com"), Query{KeysOnly: true}, 0, func(r Row) bool {
		keys = append(keys, r.Key)
		for _, c := range r.Cells {
			if c.Value != nil {
				t.Errorf("keys-only scan returned a value in %s %s", r.Key, c.Column())
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	// Byte order: "." (0x2E) < "/" (0x2F) < ":" (0x3A).
	want := []string{"com.cnn.www.edition/", "com.cnn.www/", "com.cnn/", "com.cnn:8080/x"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("Scan(cnn.com) keys (-want +got):\n%s", diff)
	}
	keys = nil
	if err := w.Scan(ctx, nil, Query{Column: "mime:type"}, 2, func(r Row) bool { keys = append(keys, r.Key); return true }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 {
		t.Errorf("Scan with limit 2 gave %d rows: %v", len(keys), keys)
	}
}

func TestStatsAndErrors(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	if _, err := w.RecordFetch(ctx, htmlPage("http://www.cnn.com/", t0, "<p>hello")); err != nil {
		t.Fatal(err)
	}
	w.SetState(ctx, "http://www.cnn.com/", crawlstore.StateDone, bigtable.Time(t0))
	bad := &Page{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/gone", Status: 404, Time: t0, Error: "http status 404 Not Found"}}
	if _, err := w.RecordFetch(ctx, bad); err != nil {
		t.Fatal(err)
	}
	w.SetState(ctx, bad.Fetch.URL, crawlstore.StateFailed, bigtable.Time(t0))
	if _, err := w.Enqueue(ctx, []crawlstore.Entry{{URL: "http://www.cnn.com/later", Depth: 2}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	s, err := w.Stats(ctx, urlkey.DomainRanges("cnn.com"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 3 || s.Fetched != 1 || s.Failed != 1 || s.Queued != 1 || s.Versions != 1 {
		t.Errorf("Stats = %+v, want 3 rows, 1 fetched (done), 1 failed, 1 queued, 1 version", s)
	}
	if s.Bytes[FamilyContents] < int64(len("<p>hello")) {
		t.Errorf("contents bytes = %d, want at least the page", s.Bytes[FamilyContents])
	}
	var failures []Failure
	if err := w.Errors(ctx, nil, 0, func(f Failure) bool { failures = append(failures, f); return true }); err != nil {
		t.Fatal(err)
	}
	if len(failures) != 1 || failures[0].Row != "com.cnn.www/gone" || failures[0].Fetch.Status != 404 {
		t.Errorf("Errors = %+v, want com.cnn.www/gone with status 404", failures)
	}
}

// TestNewWithoutCreateNeverCreates: a reader's New over a store without
// the WebTable says so and creates nothing.
func TestNewWithoutCreateNeverCreates(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "other.db")
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.CreateTable(ctx, "other")
	if _, err := New(ctx, nopClose{db}, db.Open(TableName), false, Options{}); !errors.Is(err, ErrNoWebTable) {
		t.Errorf("New(store without webtable, create=false) = %v, want ErrNoWebTable", err)
	}
	if tables, _ := db.Tables(ctx); len(tables) != 1 {
		t.Errorf("tables after a reader's New: %q, want only \"other\"", tables)
	}
}

// nopClose keeps a store open when New closes it on error.
type nopClose struct{ *bigtable.DB }

func (nopClose) Close() error { return nil }

func TestDataSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	if _, err := w.RecordFetch(ctx, htmlPage("http://www.cnn.com/", t0, "<p>kept")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r := openDir(t, dir, false, Options{})
	defer r.Close()
	row, err := r.Get(ctx, "com.cnn.www/", Query{Column: "contents:html"})
	if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != "<p>kept" {
		t.Errorf("after reopen Get = %+v, %v; want the stored page", row, err)
	}
}

func TestCorruptFetchRecordIsAClearError(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colStatus, bigtable.Time(t0), []byte("two hundred"))
	if err := w.tbl.Apply(ctx, "com.cnn.www/", m); err != nil {
		t.Fatal(err)
	}
	// NB: a record a column per field is an old form: its migration
	// reads it, and names the row it cannot read.
	asOriginal(t, w)
	var err error
	if _, merr := w.Migrate(ctx, nil, func(b BadEntry) { err = b }); merr != nil {
		t.Fatal(merr)
	}
	if err == nil || !strings.Contains(err.Error(), `"com.cnn.www/"`) || !strings.Contains(err.Error(), "fetch:status") {
		t.Errorf("Migrate of a corrupt record = %v, want an error naming the row and column", err)
	}
}

func TestQueryRejectsUnknownFamily(t *testing.T) {
	w, _ := openTemp(t)
	for _, q := range []Query{{Family: "anchr"}, {Column: "anchr:x"}, {Column: "nocolon"}} {
		if _, err := w.Get(context.Background(), "com.cnn.www/", q); err == nil {
			t.Errorf("Get with %+v: no error", q)
		}
	}
	if _, err := w.Get(context.Background(), "com.cnn.www/", Query{Family: "anchr"}); !errors.Is(err, ErrUnknownFamily) {
		t.Errorf("Get(family anchr) = %v, want ErrUnknownFamily", err)
	}
}

func TestRowKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://www.cnn.com/index.html", "com.cnn.www/index.html"},
		{"com.cnn.www/", "com.cnn.www/"},
		{"HTTPS://WWW.CNN.COM", "com.cnn.www/"},
	} {
		if got, err := RowKey(tc.in); got != tc.want || err != nil {
			t.Errorf("RowKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "mailto://x", strings.Repeat("a", MaxKeyLen+1)} {
		if _, err := RowKey(bad); err == nil {
			t.Errorf("RowKey(%.20q) gave no error", bad)
		}
	}
}

func TestPageAndScanDomain(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for i, body := range []string{"<p>old", "<p>new"} {
		if _, err := w.RecordFetch(ctx, htmlPage("http://www.cnn.com/", t0.Add(time.Duration(i)*time.Hour), body)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.RecordFetch(ctx, htmlPage("http://cnnsi.com/", t0, "<p>si")); err != nil {
		t.Fatal(err)
	}
	html := func(r Row) string {
		for _, c := range r.Cells {
			if c.Column() == "contents:html" {
				return string(c.Value)
			}
		}
		return ""
	}
	now, err := w.Page(ctx, "https://www.cnn.com", 0)
	if err != nil || html(now) != "<p>new" {
		t.Errorf("Page(now) html = %q, %v; want <p>new", html(now), err)
	}
	then, err := w.Page(ctx, "http://www.cnn.com/", bigtable.Time(t0.Add(time.Minute)))
	if err != nil || html(then) != "<p>old" {
		t.Errorf("Page(t0+1m) html = %q, %v; want <p>old", html(then), err)
	}
	var keys []string
	if err := w.ScanDomain(ctx, "cnn.com", Query{KeysOnly: true}, func(r Row) bool { keys = append(keys, r.Key); return true }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"com.cnn.www/"}, keys); diff != "" {
		t.Errorf("ScanDomain(cnn.com) (-want +got):\n%s", diff)
	}
	if err := w.ScanDomain(ctx, "exa mple.com", Query{}, func(Row) bool { return true }); err == nil {
		t.Errorf("ScanDomain of a bad domain: no error")
	}
}

// TestFetchWinsOverTheFrontierEntry: a fetch record replaces the URL's
// frontier entry whatever the fetch's timestamp (even one stamped before
// the entry was written: machines' clocks differ).
func TestFetchWinsOverTheFrontierEntry(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	if _, err := w.Enqueue(ctx, []crawlstore.Entry{{URL: "http://www.cnn.com/", Depth: 2}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	p := htmlPage("https://www.cnn.com/", time.UnixMilli(2), "<p>x") // 1 ms after the entry
	if _, err := w.RecordFetch(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, p.Fetch.URL, crawlstore.StateDone, bigtable.Time(p.Fetch.Time)); err != nil {
		t.Fatal(err)
	}
	f, ok, err := w.LastFetch(ctx, "http://www.cnn.com/")
	if err != nil || !ok || f.URL != "https://www.cnn.com/" || f.Depth != 1 || f.State != crawlstore.StateDone {
		t.Errorf("LastFetch = %+v (ok %v, err %v); want the fetch of https://www.cnn.com/ at depth 1, done", f, ok, err)
	}
}

// TestStatsOverManyTablets: with small tablets the count runs on several
// goroutines and must still be exact.
func TestStatsOverManyTablets(t *testing.T) {
	ctx := context.Background()
	w := openDir(t, filepath.Join(t.TempDir(), "db"), true, Options{Store: []bigtable.Option{bigtable.WithTabletSplitSize(16 << 10)}})
	defer w.Close()
	const pages = 300
	for i := range pages {
		p := htmlPage(fmt.Sprintf("http://www.cnn.com/p/%03d", i), t0, strings.Repeat("x", 500))
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := w.SetState(ctx, p.Fetch.URL, crawlstore.StateDone, bigtable.Time(t0)); err != nil {
			t.Fatal(err)
		}
	}
	tablets, err := w.Tablets(ctx)
	if err != nil || len(tablets) < 3 {
		t.Fatalf("%d tablets (err %v); want several with 16 KiB tablets", len(tablets), err)
	}
	s, err := w.Stats(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != pages || s.Fetched != pages || s.Versions != pages || s.Bytes[FamilyContents] < pages*500 {
		t.Errorf("Stats over %d tablets = %+v, want %d rows, fetched and versions", len(tablets), s, pages)
	}
}
