package webtable

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// setHint writes host's hint row by hand (what Save writes one time in
// hintEvery).
func setHint(t *testing.T, w *WebTable, host, key string) {
	t.Helper()
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colHint, FrontierTime, []byte(key))
	if err := w.tbl.Apply(context.Background(), frontierHintKey(host), m); err != nil {
		t.Fatal(err)
	}
}

func frontierHosts(t *testing.T, w *WebTable) []string {
	t.Helper()
	var hosts []string
	if err := w.FrontierHosts(context.Background(), 0, urlkey.Buckets, func(h string) bool { hosts = append(hosts, h); return true }, nil); err != nil {
		t.Fatal(err)
	}
	return hosts
}

// TestSaveWritesFrontierHint: saving pages with their entries records,
// now and then, a deleted entry of the host as its hint; the hint is at
// or before the host's first live entry, and reading from it gives the
// live entries.
func TestSaveWritesFrontierHint(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	const n = 400
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://a.test/%d", i)
	}
	es := entries(urls...)
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if h, err := w.FrontierHint(ctx, "a.test"); err != nil || h != "" {
		t.Fatalf("FrontierHint before any save = %q, %v; want none", h, err)
	}
	// Save pages in order until a hint appears (one deletion in 16 writes
	// one, chosen by the key's hash: all 350 without one has a chance of
	// 1.5e-10).
	saved := 0
	for saved < n-50 {
		e := es[saved]
		f := &Fetched{Page: htmlPage(e.URL, t0, "<p>x"), State: crawlstore.StateDone, StateTime: timestamp(t0), Frontier: []string{e.Frontier}}
		if _, _, err := w.Save(ctx, f); err != nil {
			t.Fatal(err)
		}
		saved++
	}
	hint, err := w.FrontierHint(ctx, "a.test")
	if err != nil || hint == "" {
		t.Fatalf("FrontierHint after %d saves = %q, %v; want a key", saved, hint, err)
	}
	if hint >= es[saved].Frontier || hint < es[0].Frontier {
		t.Errorf("hint %q is not among the deleted entries [%q, %q)", hint, es[0].Frontier, es[saved].Frontier)
	}
	p, err := w.FrontierNext(ctx, "a.test", hint, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) == 0 || p.Entries[0].URL != es[saved].URL {
		t.Errorf("FrontierNext from the hint starts at %+v, want %s", p.Entries, es[saved].URL)
	}
	if got := frontierHosts(t, w); !slices.Equal(got, []string{"a.test"}) {
		t.Errorf("FrontierHosts = %v, want [a.test]", got)
	}
}

// TestFrontierHostsWithWrongHints: a hint is checked against the store.
// A host whose live entries all sit before its hint is still listed, one
// whose entries are all deleted is not, hosts without hints between hinted
// ones are listed, each once and in key order; a damaged hint is no hint.
func TestFrontierHostsWithWrongHints(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	// Hosts chosen to share one bucket would be ideal; any order will do
	// as long as the result is compared with the listing without hints.
	var es []crawlstore.Entry
	hosts := []string{"a.test", "a.b.test", "b.test", "c.test", "d.test", "e.test"}
	for _, h := range hosts {
		es = append(es, entries("http://"+h+"/1", "http://"+h+"/2")...)
	}
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	want := frontierHosts(t, w)
	if len(want) != len(hosts) {
		t.Fatalf("FrontierHosts without hints = %v, want the %d hosts", want, len(hosts))
	}
	first := func(h string) crawlstore.Entry {
		for _, e := range es {
			if e.URL == "http://"+h+"/1" {
				return e
			}
		}
		t.Fatalf("no entry of %s", h)
		return crawlstore.Entry{}
	}
	// a.test: a hint past all its entries (a stale hint, entries before).
	setHint(t, w, "a.test", FrontierEntryKey("a.test", 1<<62, 0))
	// a.b.test: a hint at its first entry.
	setHint(t, w, "a.b.test", first("a.b.test").Frontier)
	// c.test: a damaged hint (another host's key).
	setHint(t, w, "c.test", first("b.test").Frontier)
	// e.test: every entry deleted, and a hint past them.
	for _, e := range es {
		if e.URL == "http://e.test/1" || e.URL == "http://e.test/2" {
			if err := w.tbl.Apply(ctx, e.Frontier, deleteRow()); err != nil {
				t.Fatal(err)
			}
		}
	}
	setHint(t, w, "e.test", FrontierEntryKey("e.test", 1<<62, 0))
	want = slices.DeleteFunc(want, func(h string) bool { return h == "e.test" })
	if got := frontierHosts(t, w); !slices.Equal(got, want) {
		t.Errorf("FrontierHosts with hints = %v, want %v", got, want)
	}
	if h, err := w.FrontierHint(ctx, "c.test"); err != nil || h != "" {
		t.Errorf("FrontierHint(c.test) with another host's key = %q, %v; want none", h, err)
	}
	// Stopping early stops.
	n := 0
	if err := w.FrontierHosts(ctx, 0, urlkey.Buckets, func(string) bool { n++; return false }, nil); err != nil || n != 1 {
		t.Errorf("FrontierHosts stopped by fn called it %d times (%v), want 1", n, err)
	}
}

// TestFrontierHintRowsSortLikeHosts: a host's hint row ends as its
// frontier prefix does, so hint rows sort in the order of the hosts'
// entries, also when one host name is a prefix of another's ("a" and
// "a.b": "a.b/" sorts before "a/").
func TestFrontierHintRowsSortLikeHosts(t *testing.T) {
	for _, h := range []string{"a", "a.b", "x.test:8080", "[::1]:8080", "h0042.web.test"} {
		hint, _ := strings.CutPrefix(frontierHintKey(h), FrontierHintPrefix)
		entry, _ := strings.CutPrefix(FrontierHostPrefix(h), FrontierPrefix)
		if hint != entry {
			t.Errorf("hint row of %s ends %q, its frontier prefix %q; want the same", h, hint, entry)
		}
	}
}

// TestHasFrontier: an empty frontier has nothing; an entry is found with
// or without a hint, also when its host's hint is past it; a host whose
// entries are all deleted has nothing, whatever its hint says.
func TestHasFrontier(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	has := func() bool {
		t.Helper()
		ok, err := w.HasFrontier(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if has() {
		t.Errorf("HasFrontier of an empty store = true")
	}
	es := entries("http://a.test/1")
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if !has() {
		t.Errorf("HasFrontier with one entry and no hint = false")
	}
	setHint(t, w, "a.test", FrontierEntryKey("a.test", 1<<62, 0))
	if !has() {
		t.Errorf("HasFrontier with one entry before its host's hint = false")
	}
	if err := w.tbl.Apply(ctx, es[0].Frontier, deleteRow()); err != nil {
		t.Fatal(err)
	}
	setHint(t, w, "a.test", es[0].Frontier)
	if has() {
		t.Errorf("HasFrontier with the only entry deleted = true")
	}
}
