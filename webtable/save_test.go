package webtable

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// countingTable counts write calls (Apply and ApplyBulk). Embedding *bigtable.Table it keeps
// the embedded store's OrderedBulk; hiding it behind the Table interface
// it does not (as Cloud Bigtable's table does not have it).
type countingTable struct {
	Table
	writes int
}

func (c *countingTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	c.writes++
	return c.Table.ApplyBulk(ctx, rows, muts)
}

func (c *countingTable) Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error {
	c.writes++
	return c.Table.Apply(ctx, row, m, opts...)
}

type orderedCountingTable struct {
	*countingTable
	*bigtable.Table // for OrderedBulk only
}

func (o orderedCountingTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	return o.countingTable.ApplyBulk(ctx, rows, muts)
}

func (o orderedCountingTable) Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error {
	return o.countingTable.Apply(ctx, row, m, opts...)
}

func (o orderedCountingTable) ReadRow(ctx context.Context, row string, opts ...bigtable.ReadOption) (bigtable.Row, error) {
	return o.countingTable.ReadRow(ctx, row, opts...)
}

func (o orderedCountingTable) ReadRows(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error {
	return o.countingTable.ReadRows(ctx, rs, f, opts...)
}

func (o orderedCountingTable) SampleRowKeys(ctx context.Context) ([]string, error) {
	return o.countingTable.SampleRowKeys(ctx)
}

// TestSaveAsksForOrderedBulk: Save writes a page, its links and its state
// in one bulk call on a table that says its bulk calls commit in order,
// in separate steps on one that does not, and stores the same rows both
// ways.
func TestSaveAsksForOrderedBulk(t *testing.T) {
	ctx := context.Background()
	fetched := func() *Fetched {
		return &Fetched{
			Page:       htmlPage("http://www.cnn.com/", t0, "<p>hello"),
			Anchors:    []Anchor{{URL: "http://www.cnn.com/a", Text: "a"}, {URL: "http://cnnsi.com/", Text: "CNN/SI"}},
			Discovered: []crawlstore.Entry{{URL: "http://www.cnn.com/a", Depth: 2}, {URL: "http://cnnsi.com/", Depth: 2}},
			AnchorTime: TimestampOf(t0).TruncateToMilliseconds(),
			State:      crawlstore.StateDone,
			StateTime:  TimestampOf(t0).TruncateToMilliseconds(),
		}
	}
	var dumps [][]Row
	for _, tc := range []struct {
		name      string
		ordered   bool
		wantCalls func(n int) bool
	}{
		{"ordered: one bulk call", true, func(n int) bool { return n == 1 }},
		{"unordered: in steps", false, func(n int) bool { return n > 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := bigtable.Open(filepath.Join(t.TempDir(), "db"))
			if err != nil {
				t.Fatal(err)
			}
			counting := &countingTable{Table: db.Open(TableName)}
			var tbl Table = counting
			if tc.ordered {
				tbl = orderedCountingTable{counting, db.Open(TableName)}
			}
			w, err := New(ctx, db, tbl, true, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			counting.writes = 0 // New's: the format version of the new table
			if _, _, err := w.Save(ctx, fetched()); err != nil {
				t.Fatal(err)
			}
			if !tc.wantCalls(counting.writes) {
				t.Errorf("Save made %d write calls", counting.writes)
			}
			dumps = append(dumps, dump(t, w))
		})
	}
	if len(dumps) == 2 {
		if diff := cmp.Diff(dumps[0], dumps[1]); diff != "" {
			t.Errorf("rows saved in one bulk call (-) and in steps (+) differ:\n%s", diff)
		}
	}
}

// TestSaveNewRowReadsNoVersion: with NewRow the caller vouches that the
// row holds no content, and Save stores the body without reading the
// newest version (so a body equal to it is one more version, as the field
// warns); without it an unchanged body is not stored again.
func TestSaveNewRowReadsNoVersion(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	save := func(newRow bool) Stored {
		t.Helper()
		f := &Fetched{Page: htmlPage("http://www.cnn.com/", t0, "<p>same"), State: crawlstore.StateDone, StateTime: TimestampOf(t0), NewRow: newRow}
		stored, _, err := w.Save(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	for i, tc := range []struct {
		newRow bool
		want   Stored
	}{{true, NewVersion}, {false, Unchanged}, {true, NewVersion}} {
		if got := save(tc.newRow); got != tc.want {
			t.Errorf("save %d (NewRow %v) = %v, want %v", i, tc.newRow, got, tc.want)
		}
	}
}

// TestSaveNewRowWrongWordReadsRight: NewRow also writes the page's
// contents, MIME type and anchors without pruning. Given wrongly (the
// page saved before), the older versions stay on disk, but reads still
// return only what the GC policies keep: one anchor text per referrer, the
// newest first.
func TestSaveNewRowWrongWordReadsRight(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for i, text := range []string{"one", "two", "three"} {
		at := t0.Add(time.Duration(i) * time.Hour)
		p := htmlPage("http://www.cnn.com/", at, "<p>"+text)
		f := &Fetched{Page: p, State: crawlstore.StateDone, StateTime: TimestampOf(at), NewRow: true,
			Anchors: []Anchor{{URL: "http://cnnsi.com/", Text: text}}, AnchorTime: TimestampOf(at)}
		if _, _, err := w.Save(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	row, err := w.Get(ctx, "com.cnnsi/", Query{Versions: -1})
	if err != nil {
		t.Fatal(err)
	}
	var anchors []string
	for _, c := range row.Cells {
		if c.Family == FamilyAnchor {
			anchors = append(anchors, string(c.Value))
		}
	}
	if len(anchors) != 1 || anchors[0] != "three" {
		t.Errorf("cnnsi.com's anchors read %q, want only the newest, [three]", anchors)
	}
	page, err := w.Get(ctx, "com.cnn.www/", Query{Column: FamilyMIME + ":type", Versions: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Cells) != 1 {
		t.Errorf("www.cnn.com's mime:type reads %d versions, want 1 (its policy keeps one)", len(page.Cells))
	}
}

// TestSaveNewRowLeavesNoQueuedCells: a page queued as new and saved with
// NewRow writes nothing it prunes and reads nothing, yet leaves on disk
// the cells of a save that pruned: the queued row's state (at
// FrontierTime) is deleted as a known cell. Seen in Badger itself,
// since reads hide the versions a GC policy collects.
func TestSaveNewRowLeavesNoQueuedCells(t *testing.T) {
	ctx := context.Background()
	var keys [2]int
	for i, newRow := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "db")
		w := openDir(t, dir, true, Options{})
		es := []crawlstore.Entry{{URL: "http://www.cnn.com/a", Depth: 2}}
		if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
			t.Fatal(err)
		}
		p := htmlPage("http://www.cnn.com/a", t0, "<p>a")
		f := &Fetched{Page: p, State: crawlstore.StateDone, StateTime: TimestampOf(t0), NewRow: newRow,
			Frontier: []string{es[0].Frontier}}
		if _, _, err := w.Save(ctx, f); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		keys[i] = badgerKeys(t, dir, "com.cnn.www/a")
	}
	if keys[0] == 0 || keys[1] != keys[0] {
		t.Errorf("Badger holds %d live keys of the page's row after a save that pruned and %d after one with NewRow, want the same", keys[0], keys[1])
	}
}

// badgerKeys counts the live keys in the Badger store at dir that hold
// the bytes of row (versions hidden by GC policies included).
func badgerKeys(t *testing.T, dir, row string) int {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if bytes.Contains(it.Item().Key(), []byte(row)) {
				n++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNewRowRecordLeavesEmptyFieldsOut: a fetch is one cell,
// fetch:record, beside fetch:state, whether the save pruned or not
// (NewRow), and reads the same either way; a later fetch replaces the
// whole record, so that an empty field replaces the value of the fetch
// before.
func TestNewRowRecordLeavesEmptyFieldsOut(t *testing.T) {
	ctx := context.Background()
	const url = "http://www.cnn.com/a"
	var got [2]crawlstore.Fetch
	for i, newRow := range []bool{false, true} {
		w, _ := openTemp(t)
		es := []crawlstore.Entry{{URL: url, Depth: 1}}
		if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
			t.Fatal(err)
		}
		f := &Fetched{Page: htmlPage(url, t0, "<p>a"), State: crawlstore.StateDone, StateTime: TimestampOf(t0), NewRow: newRow,
			Frontier: []string{es[0].Frontier}}
		if _, _, err := w.Save(ctx, f); err != nil {
			t.Fatal(err)
		}
		var ok bool
		var err error
		if got[i], ok, err = w.LastFetch(ctx, url); err != nil || !ok {
			t.Fatalf("LastFetch: %v, %v", ok, err)
		}
		row, err := w.Get(ctx, "com.cnn.www/a", Query{Family: FamilyFetch})
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for _, c := range row.Cells {
			cols = append(cols, c.Qualifier)
		}
		want := []string{"record", "state"}
		if diff := cmp.Diff(want, cols); diff != "" {
			t.Errorf("NewRow %v: fetch columns (-want +got):\n%s", newRow, diff)
		}
		if !newRow {
			continue
		}
		// A failed fetch, then a success: the success's empty error and
		// its false truncated replace the failure's.
		for j, e := range []string{"connection reset", ""} {
			p := htmlPage(url, t0.Add(time.Duration(j+1)*time.Hour), "<p>a")
			p.Fetch.Error, p.Fetch.Truncated = e, e != ""
			f := &Fetched{Page: p, State: crawlstore.StateDone, StateTime: TimestampOf(p.Fetch.Time)}
			if _, _, err := w.Save(ctx, f); err != nil {
				t.Fatal(err)
			}
			last, _, err := w.LastFetch(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if last.Error != e || last.Truncated != (e != "") {
				t.Errorf("after a fetch with error %q: LastFetch reads error %q, truncated %v", e, last.Error, last.Truncated)
			}
		}
	}
	if diff := cmp.Diff(got[0], got[1]); diff != "" {
		t.Errorf("LastFetch after a save that pruned and after one with NewRow (-pruned +NewRow):\n%s", diff)
	}
}

// TestSaveMarksTheHostFetched: a page saved done counts once for the host
// of the URL fetched (HostPages), however often it is saved; for a
// redirect between rows that is the source's host, not the target's; a
// failed page counts nothing. The same on a store whose bulk calls commit
// in order (one bulk call) and on one whose do not (in steps).
func TestSaveMarksTheHostFetched(t *testing.T) {
	ctx := context.Background()
	ts := TimestampOf(t0).TruncateToMilliseconds()
	for _, ordered := range []bool{true, false} {
		t.Run(map[bool]string{true: "one bulk call", false: "in steps"}[ordered], func(t *testing.T) {
			db, err := bigtable.Open(filepath.Join(t.TempDir(), "db"))
			if err != nil {
				t.Fatal(err)
			}
			counting := &countingTable{Table: db.Open(TableName)}
			var tbl Table = counting
			if ordered {
				tbl = orderedCountingTable{counting, db.Open(TableName)}
			}
			w, err := New(ctx, db, tbl, true, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			save := func(f *Fetched) {
				t.Helper()
				if _, _, err := w.Save(ctx, f); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 2 { // saved twice: one mark
				save(&Fetched{Page: htmlPage("http://a.example/p", t0.Add(time.Duration(i)*time.Minute), "<p>a"), State: crawlstore.StateDone, StateTime: ts, NewRow: i == 0})
			}
			src := &Page{Fetch: crawlstore.Fetch{URL: "http://b.example/old", Status: 301, Time: t0, Redirect: "http://c.example/new"}}
			save(&Fetched{Page: htmlPage("http://c.example/new", t0, "<p>c"), Source: src, State: crawlstore.StateDone, StateTime: ts})
			failed := &Page{Fetch: crawlstore.Fetch{URL: "http://a.example/gone", Status: 500, Time: t0, Error: "500"}}
			save(&Fetched{Page: failed, State: crawlstore.StateFailed, StateTime: ts})
			for host, want := range map[string]int{"a.example": 1, "b.example": 1, "c.example": 0} {
				if n, err := w.HostPages(ctx, host, 10); err != nil || n != want {
					t.Errorf("HostPages(%s) = %d, %v; want %d", host, n, err, want)
				}
			}
		})
	}
}

// TestSaveRefusesAPageNoCellHolds: a page whose body is longer than a cell
// holds is refused before anything is written, so it is not marked done
// (nor counted for its host) without its content. In one bulk call the
// store writes the entries after one it refuses.
func TestSaveRefusesAPageNoCellHolds(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	ts := TimestampOf(t0).TruncateToMilliseconds()
	p := htmlPage("http://a.example/big", t0, "")
	p.Body = make([]byte, MaxBody+1)
	_, _, err := w.Save(ctx, &Fetched{Page: p, State: crawlstore.StateDone, StateTime: ts, NewRow: true,
		Anchors: []Anchor{{URL: "http://a.example/next", Text: "next"}}})
	if !errors.Is(err, bigtable.ErrValueTooLarge) {
		t.Fatalf("Save of a body of MaxBody+1 bytes = %v, want ErrValueTooLarge", err)
	}
	for _, key := range []string{"example.a/big", "example.a/next"} {
		if row, err := w.Get(ctx, key, Query{}); err != nil || len(row.Cells) != 0 {
			t.Errorf("after the refused save, row %s holds %d cells (%v), want none", key, len(row.Cells), err)
		}
	}
	if n, err := w.HostPages(ctx, "a.example", 10); err != nil || n != 0 {
		t.Errorf("HostPages(a.example) = %d, %v after the refused save, want 0", n, err)
	}
}
