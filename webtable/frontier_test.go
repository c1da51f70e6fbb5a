package webtable

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// TestFrontierKeyLayout lists keys in the order they must sort: by bucket,
// then host, then position; each parses back to its bucket and host.
func TestFrontierKeyLayout(t *testing.T) {
	k := FrontierEntryKey("www.cnn.com", 0x66186732e083f, 0x3e59ee03)
	want := fmt.Sprintf("~frontier/%06d/www.cnn.com/00066186732e083f3e59ee03", urlkey.HostBucket("www.cnn.com"))
	if k != want {
		t.Errorf("FrontierEntryKey = %q, want %q", k, want)
	}
	for _, host := range []string{"www.cnn.com", "127.0.0.1:8080", "[::1]:8080", "h0042.web.test"} {
		k := FrontierEntryKey(host, 1, 2)
		b, h, err := ParseFrontierKey(k)
		if err != nil || h != host || b != urlkey.HostBucket(host) {
			t.Errorf("ParseFrontierKey(%q) = %d, %q, %v; want %d, %q", k, b, h, err, urlkey.HostBucket(host), host)
		}
		if !IsReserved(k) || PageRange().Contains(k) {
			t.Errorf("%q is a page key (IsReserved %v)", k, IsReserved(k))
		}
		if !strings.HasPrefix(FrontierEntryKey(host, 9, 0), FrontierHostPrefix(host)) {
			t.Errorf("entry of %s is not under its host prefix", host)
		}
		if a, b := FrontierEntryKey(host, 255, 0), FrontierEntryKey(host, 256, 0); a >= b {
			t.Errorf("position 255 sorts at or after 256: %q >= %q", a, b)
		}
	}
	for _, bad := range []string{"com.cnn.www/", "~frontier/", "~frontier/12345/x/0000000000000000ffffffff", "~frontier/999999/x/0000000000000000ffffffff", "~frontier/000001/x/short"} {
		if _, _, err := ParseFrontierKey(bad); err == nil {
			t.Errorf("ParseFrontierKey(%q) succeeded, want an error", bad)
		}
	}
	// A page key of every kind sorts before the reserved space.
	for _, u := range []string{"http://www.cnn.com/", "http://127.0.0.1/", "http://[::1]/", "http://_x.example/", "http://xn--bcher-kva.de/", "http://9.example/"} {
		k, err := urlkey.Key(u)
		if err != nil {
			t.Fatal(err)
		}
		if !PageRange().Contains(k) || IsReserved(k) {
			t.Errorf("page key %q of %s is outside PageRange", k, u)
		}
	}
}

// TestBucketRangesCoverShards: every shard count up to 16 splits the
// buckets into equal contiguous ranges, and ShardOfBucket inverts them.
func TestBucketRangesCoverShards(t *testing.T) {
	for n := 1; n <= 16; n++ {
		if urlkey.Buckets%n != 0 {
			t.Errorf("%d shards do not divide %d buckets", n, urlkey.Buckets)
		}
		next := 0
		for s := range n {
			lo, hi := urlkey.BucketRange(s, n)
			if lo != next || hi-lo != urlkey.Buckets/n {
				t.Errorf("BucketRange(%d, %d) = [%d, %d), want [%d, %d)", s, n, lo, hi, next, next+urlkey.Buckets/n)
			}
			for _, b := range []int{lo, hi - 1} {
				if got := urlkey.ShardOfBucket(b, n); got != s {
					t.Errorf("ShardOfBucket(%d, %d) = %d, want %d", b, n, got, s)
				}
			}
			next = hi
		}
	}
}

func entries(urls ...string) []crawlstore.Entry {
	out := make([]crawlstore.Entry, len(urls))
	for i, u := range urls {
		out[i] = crawlstore.Entry{URL: u, Depth: i}
	}
	return out
}

// TestFrontierNextWalksForward: entries come back in order of discovery, a
// page at a time, the cursor moving on; a saved page's entry is gone; an
// entry of a page fetched through another entry is dropped as stale.
func TestFrontierNextWalksForward(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	es := entries("http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/1", "http://a.test/4")
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	for i, e := range es {
		if e.Frontier == "" || e.Key == "" {
			t.Fatalf("entry %d after Enqueue = %+v, want its frontier and row keys", i, e)
		}
	}
	var hosts []string
	if err := w.FrontierHosts(ctx, 0, urlkey.Buckets, func(h string) bool { hosts = append(hosts, h); return true }, nil); err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 2 {
		t.Errorf("FrontierHosts = %v, want a.test and b.test once each", hosts)
	}
	p, err := w.FrontierNext(ctx, "a.test", "", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 || p.Entries[0].URL != "http://a.test/1" || p.Entries[1].URL != "http://a.test/2" || !p.More {
		t.Fatalf("first page = %+v, want a.test/1 and /2 and more", p)
	}
	// Page 1 is saved (its entry deleted); page 3 is fetched through a
	// redirect and marked done without its entry.
	f := &Fetched{Page: htmlPage("http://a.test/1", t0, "<p>1"), State: crawlstore.StateDone, StateTime: timestamp(t0), Frontier: []string{p.Entries[0].Frontier}}
	if _, _, err := w.Save(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, "http://a.test/3", crawlstore.StateDone, timestamp(t0)); err != nil {
		t.Fatal(err)
	}
	p2, err := w.FrontierNext(ctx, "a.test", p.Next, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Entries) != 1 || p2.Entries[0].URL != "http://a.test/4" || p2.More || p2.Stale != 1 {
		t.Errorf("second page = %+v, want only a.test/4 (3 stale), no more", p2)
	}
	all, err := w.FrontierNext(ctx, "a.test", "", 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Entries) != 2 {
		t.Errorf("a.test from the start = %+v, want /2 and /4 (1 saved, 3 deleted as stale)", all.Entries)
	}
	n, err := w.FrontierSize(ctx, 0, urlkey.Buckets)
	if err != nil || n != 3 {
		t.Errorf("FrontierSize = %d, %v; want 3", n, err)
	}
	st, err := w.Stats(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Frontier != 3 || st.Rows != 5 {
		t.Errorf("Stats rows %d frontier %d, want 5 page rows and 3 entries", st.Rows, st.Frontier)
	}
	var scanned []string
	if err := w.Scan(ctx, nil, Query{KeysOnly: true}, 0, func(r Row) bool { scanned = append(scanned, r.Key); return true }); err != nil {
		t.Fatal(err)
	}
	for _, k := range scanned {
		if IsReserved(k) {
			t.Errorf("Scan returned the reserved row %q", k)
		}
	}
}

// TestFrontierNextQueuedSkipsStateReads: FrontierNext with queued reads the
// state of an entry's page only when the caller does not know it queued:
// a done page's entry is dropped as stale when its state is read, and
// handed out (as documented for a wrong answer) when the caller says the
// page is queued, which shows that the state was not read.
func TestFrontierNextQueuedSkipsStateReads(t *testing.T) {
	ctx := context.Background()
	for _, known := range []bool{false, true} {
		w, _ := openTemp(t)
		es := entries("http://a.test/1", "http://a.test/2")
		if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
			t.Fatal(err)
		}
		if err := w.SetState(ctx, "http://a.test/1", crawlstore.StateDone, timestamp(t0)); err != nil {
			t.Fatal(err)
		}
		var asked []string
		p, err := w.FrontierNext(ctx, "a.test", "", 10, func(key string) bool {
			asked = append(asked, key)
			return known
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range p.Entries {
			got = append(got, e.URL)
		}
		want, stale := []string{"http://a.test/2"}, 1
		if known {
			want, stale = []string{"http://a.test/1", "http://a.test/2"}, 0
		}
		if !slices.Equal(got, want) || p.Stale != stale {
			t.Errorf("queued says %v: entries %q, %d stale; want %q, %d stale", known, got, p.Stale, want, stale)
		}
		if !slices.Equal(asked, []string{es[0].Key, es[1].Key}) {
			t.Errorf("queued was asked about %q, want each page's row key once: %q %q", asked, es[0].Key, es[1].Key)
		}
	}
}

// TestRequeueOnlyBeforeTheRun: a failed URL met again is queued again once
// when it failed before the run, never when it failed during it.
func TestRequeueOnlyBeforeTheRun(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	bad := &Page{Fetch: crawlstore.Fetch{URL: "http://a.test/x", Status: 500, Time: t0, Error: "500"}}
	if _, err := w.RecordFetch(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, bad.Fetch.URL, crawlstore.StateFailed, timestamp(t0)); err != nil {
		t.Fatal(err)
	}
	during := crawlstore.Requeue{Failed: true, Before: t0}
	es := entries("http://a.test/x")
	if st, err := w.Enqueue(ctx, es, during); err != nil || st[0] != crawlstore.StateFailed || es[0].Frontier != "" {
		t.Errorf("Enqueue in the run that failed it = %v, %v, frontier %q; want failed and not queued", st, err, es[0].Frontier)
	}
	after := crawlstore.Requeue{Failed: true, Before: t0.Add(1)}
	if st, err := w.Enqueue(ctx, es, after); err != nil || st[0] != crawlstore.StateFailed || es[0].Frontier == "" {
		t.Errorf("Enqueue in a later run = %v, %v, frontier %q; want failed and queued", st, err, es[0].Frontier)
	}
	es2 := entries("http://a.test/x")
	if st, err := w.Enqueue(ctx, es2, after); err != nil || st[0] != crawlstore.StateQueued || es2[0].Frontier != "" {
		t.Errorf("Enqueue once more = %v, %v; want queued, no second entry", st, err)
	}
}

// TestMigrateFrontier: a store written before the frontier had its own
// rows (queued state in the page's row only), migrated, gets one entry per
// queued page; a row that cannot be read is skipped and reported; the
// format version makes a second run do nothing.
func TestMigrateFrontier(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	old := func(key, url, depth, state string) {
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colURL, FrontierTime, []byte(url))
		m.Set(FamilyFetch, colDepth, FrontierTime, []byte(depth))
		m.Set(FamilyFetch, colState, FrontierTime, []byte(state))
		if err := w.tbl.Apply(ctx, key, m); err != nil {
			t.Fatal(err)
		}
	}
	old("com.cnn.www/", "http://www.cnn.com/", "0", "queued")
	old("com.cnn.www/a", "http://www.cnn.com/a", "1", "queued")
	old("com.cnn.www/b", "http://www.cnn.com/b", "oops", "queued")
	old("com.cnn.www/c", "ftp://www.cnn.com/c", "1", "queued")
	old("com.cnn.www/d", "http://www.cnn.com/d", "1", "done")
	asOriginal(t, w)
	rows, bad := migrateAll(t, w)
	if n := rows[FormatFrontierRows]; n != 2 || len(bad) != 2 || bad[0] != "com.cnn.www/b" || bad[1] != "com.cnn.www/c" {
		t.Errorf("Migrate = %d entries, bad %v; want 2 and the rows /b and /c", n, bad)
	}
	var got []string
	if err := w.Queued(ctx, func(e crawlstore.Entry) bool { got = append(got, e.URL); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "http://www.cnn.com/" || got[1] != "http://www.cnn.com/a" {
		t.Errorf("Queued after migration = %v", got)
	}
	if rows, bad := migrateAll(t, w); len(rows) != 0 || len(bad) != 0 {
		t.Errorf("second Migrate = steps %v, bad %v; want none", rows, bad)
	}
}

// TestBadFrontierEntryIsSkipped: an entry whose URL does not parse is
// reported and skipped; the entries after it are read.
func TestBadFrontierEntryIsSkipped(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	es := entries("http://a.test/1", "http://a.test/2")
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colEntry, FrontierTime, []byte("0 0 http://a.test:99999/"))
	if err := w.tbl.Apply(ctx, es[0].Frontier, m); err != nil {
		t.Fatal(err)
	}
	p, err := w.FrontierNext(ctx, "a.test", "", 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Bad) != 1 || p.Bad[0].Key != es[0].Frontier || len(p.Entries) != 1 || p.Entries[0].URL != "http://a.test/2" {
		t.Errorf("FrontierNext = %+v, want the bad entry reported and a.test/2 read", p)
	}
}

// FuzzFrontierKeyOrder: entries of one host sort by position, a key parses
// back to its bucket and host, and no frontier key is a page key.
func FuzzFrontierKeyOrder(f *testing.F) {
	f.Add("www.cnn.com", uint64(1), uint64(2), uint32(7))
	f.Add("127.0.0.1:8080", uint64(255), uint64(256), uint32(0))
	f.Add("[::1]:8080", uint64(1)<<60, uint64(1)<<61, uint32(1)<<31)
	f.Fuzz(func(t *testing.T, host string, a, b uint64, node uint32) {
		u, err := urlkey.Canonical("http://" + host + "/")
		if err != nil {
			return
		}
		h := u.Host
		ka, kb := FrontierEntryKey(h, a, node), FrontierEntryKey(h, b, node)
		if (a < b) != (ka < kb) || (a == b) != (ka == kb) {
			t.Errorf("positions %d, %d of %s sort as %q, %q", a, b, h, ka, kb)
		}
		bucket, got, err := ParseFrontierKey(ka)
		if err != nil || got != h || bucket != urlkey.HostBucket(h) {
			t.Errorf("ParseFrontierKey(%q) = %d, %q, %v; want %d, %q", ka, bucket, got, err, urlkey.HostBucket(h), h)
		}
		if PageRange().Contains(ka) {
			t.Errorf("frontier key %q is in the page range", ka)
		}
	})
}

// TestFrontierEntryChain checks that an entry's depth and pattern chain
// survive the frontier, and that an entry is one cell, fetch:entry: one
// Badger write per link queued.
func TestFrontierEntryChain(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	es := []crawlstore.Entry{{URL: "http://a.test/1", Depth: 1}, {URL: "http://a.test/2", Depth: 2, Chain: 3}}
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	p, err := w.FrontierNext(ctx, "a.test", "", 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 {
		t.Fatalf("FrontierNext = %+v, want 2 entries", p)
	}
	for i, want := range es {
		if got := p.Entries[i]; got.URL != want.URL || got.Depth != want.Depth || got.Chain != want.Chain {
			t.Errorf("entry %d = %+v, want URL %s, depth %d, chain %d", i, got, want.URL, want.Depth, want.Chain)
		}
	}
	for i, want := range []string{"1 0 http://a.test/1", "2 3 http://a.test/2"} {
		if got := entryCells(t, w, es[i].Frontier); got != "[entry="+want+"]" {
			t.Errorf("entry %d's row holds %s, want [entry=%s]", i, got, want)
		}
	}
}

// entryCells lists the cells of a frontier entry's row, "qualifier=value".
func entryCells(t *testing.T, w *WebTable, key string) string {
	t.Helper()
	row, err := w.tbl.ReadRow(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fam := range row {
		for _, it := range fam {
			out = append(out, qualifier(it.Column)+"="+string(it.Value))
		}
	}
	return fmt.Sprint(out)
}

// TestOldFormFrontierEntry: an entry written before entries were one cell
// (fetch:url, fetch:depth and, when not 0, fetch:chain), migrated, is read
// by FrontierNext and Queued like a new one; the migration rewrote it in
// the current form, so that the save of its page deletes it (Save's delete
// removes the current form's cell only).
func TestOldFormFrontierEntry(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	old := func(key, url, depth, chain string) {
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colURL, FrontierTime, []byte(url))
		m.Set(FamilyFetch, colDepth, FrontierTime, []byte(depth))
		if chain != "" {
			m.Set(FamilyFetch, colChain, FrontierTime, []byte(chain))
		}
		if err := w.tbl.Apply(ctx, key, m); err != nil {
			t.Fatal(err)
		}
	}
	k1, k2 := FrontierEntryKey("a.test", 1, 7), FrontierEntryKey("a.test", 2, 7)
	old(k1, "http://a.test/1", "4", "")
	old(k2, "http://a.test/2", "5", "2")
	asOriginal(t, w)
	migrateAll(t, w)
	var queued []crawlstore.Entry
	if err := w.Queued(ctx, func(e crawlstore.Entry) bool { queued = append(queued, e); return true }); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(queued), fmt.Sprint([]crawlstore.Entry{
		{URL: "http://a.test/1", Depth: 4, Key: "test.a/1", Frontier: k1},
		{URL: "http://a.test/2", Depth: 5, Key: "test.a/2", Frontier: k2, Chain: 2},
	}); got != want {
		t.Fatalf("Queued of old-form entries = %s, want %s", got, want)
	}
	p, err := w.FrontierNext(ctx, "a.test", "", 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(p.Entries); got != fmt.Sprint(queued) {
		t.Fatalf("FrontierNext of old-form entries = %s, want %s", got, fmt.Sprint(queued))
	}
	for key, want := range map[string]string{k1: "[entry=4 0 http://a.test/1]", k2: "[entry=5 2 http://a.test/2]"} {
		if got := entryCells(t, w, key); got != want {
			t.Errorf("old-form entry %s after Migrate holds %s, want %s (rewritten)", key, got, want)
		}
	}
	f := &Fetched{Page: &Page{Fetch: crawlstore.Fetch{URL: "http://a.test/1", Status: 200, Time: time.Now(), Depth: 4}},
		State: crawlstore.StateDone, StateTime: timestamp(time.Now()), Frontier: []string{k1}}
	if _, _, err := w.Save(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushDeletes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := entryCells(t, w, k1); got != "[]" {
		t.Errorf("the entry of a saved page holds %s, want nothing", got)
	}
	if n, err := w.FrontierSize(ctx, 0, urlkey.Buckets); n != 1 || err != nil {
		t.Errorf("FrontierSize = %d, %v; want 1 (a.test/2's)", n, err)
	}
}

// TestQueuedRowHoldsStateOnly: a URL queued as new gets a row holding
// fetch:state queued and nothing more of the fetch family (its URL and
// depth are in its frontier entry), and a migration over such rows (a
// store without a format version) neither writes entries for them again
// nor reports them as unreadable.
func TestQueuedRowHoldsStateOnly(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	es := []crawlstore.Entry{{URL: "http://a.test/x", Depth: 3}}
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if got, want := entryCells(t, w, "test.a/x"), "[state=queued]"; got != want {
		t.Errorf("the queued row holds %s, want %s", got, want)
	}
	if got, want := entryCells(t, w, es[0].Frontier), "[entry=3 0 http://a.test/x]"; got != want {
		t.Errorf("its frontier entry holds %s, want %s", got, want)
	}
	asOriginal(t, w)
	rows, bad := migrateAll(t, w)
	if n := rows[FormatFrontierRows]; n != 0 || len(bad) != 0 {
		t.Errorf("Migrate = %d entries, bad %v; want 0, none", n, bad)
	}
}

// FuzzEntryValue: a frontier entry's one cell reads back as the depth,
// chain and URL written, whatever the URL holds (spaces included: the
// value is split at its first two spaces only).
func FuzzEntryValue(f *testing.F) {
	f.Add(0, 0, "http://www.cnn.com/")
	f.Add(3, 2, "http://a.test/a b c")
	f.Add(-1, 1<<40, "")
	f.Fuzz(func(t *testing.T, depth, chain int, url string) {
		var e crawlstore.Entry
		v := entryValue(crawlstore.Entry{URL: url, Depth: depth, Chain: chain})
		if err := parseEntryValue(&e, string(v)); err != nil {
			t.Fatalf("parseEntryValue(%q): %v", v, err)
		}
		if e.URL != url || e.Depth != depth || e.Chain != chain {
			t.Errorf("entry %q reads back as %d %d %q, want %d %d %q", v, e.Depth, e.Chain, e.URL, depth, chain, url)
		}
	})
}
