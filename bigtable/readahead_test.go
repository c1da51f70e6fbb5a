package bigtable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/google/go-cmp/cmp"
)

// Read-ahead: a long ReadRows reads the rest of its range on a second
// goroutine (readahead.go). These tests require that it changes nothing a
// caller can see: the same rows in the same order, the same early stops,
// errors, cancellations and panics, and no goroutine left behind.

const raRows = 3000

// readAheadDB opens a store reading ahead after `after` rows, with two
// processors at least so that read-ahead runs at all.
func readAheadDB(t *testing.T, after int, opts ...Option) *testDB {
	t.Helper()
	if runtime.GOMAXPROCS(0) < 2 {
		prev := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	return openTestDB(t, append([]Option{WithReadAhead(after)}, opts...)...)
}

// dealing sets how many goroutines read ahead and how many rows each takes
// in turn.
func dealing(readers, group int) Option {
	return optionFunc(func(o *options) { o.readAheadReaders, o.readAheadGroup = readers, group })
}

// deals are the ways of dealing rows that the read-ahead tests try: one
// reader, the default, one row at a time, and three readers.
var deals = []struct {
	name          string
	readers, rows int
}{
	{"one reader", 1, readAheadGroup},
	{"default", DefaultReadAheadGoroutines, readAheadGroup},
	{"two by one row", 2, 1},
	{"three by three rows", 3, 3},
}

// fillReadAhead writes raRows rows of varied shape: one to three families,
// several qualifiers and versions, values from empty to 300 KB (so that
// batches end on bytes as well as on rows), and a family whose GC policy
// keeps one version.
func fillReadAhead(t *testing.T, db *testDB) *Table {
	t.Helper()
	tbl := db.mustTable("t", "a", "b", "gc")
	if err := db.SetGCPolicy(context.Background(), "t", "gc", MaxVersionsPolicy(1)); err != nil {
		t.Fatal(err)
	}
	var rows []string
	var muts []*Mutation
	for i := range raRows {
		m := NewMutation()
		m.Set("a", "x", 1, []byte(fmt.Sprintf("a%d", i)))
		if i%3 == 0 {
			m.Set("a", "y", 2, nil)
			m.Set("a", "y", 1, []byte("older"))
		}
		if i%5 == 0 {
			m.Set("b", fmt.Sprintf("q%d", i%7), 7, []byte(strings.Repeat("b", i%1000)))
		}
		if i%97 == 0 {
			m.Set("b", "big", 1, []byte(strings.Repeat("B", 300<<10)))
		}
		if i%4 == 0 {
			m.Set("gc", "v", 1, []byte("old"))
			m.Set("gc", "v", 2, []byte("new"))
		}
		rows = append(rows, fmt.Sprintf("row%05d", i))
		muts = append(muts, m)
	}
	errs, err := tbl.ApplyBulk(context.Background(), rows, muts)
	if err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	return tbl
}

func TestReadAheadSameRows(t *testing.T) {
	filters := []struct {
		name string
		opts []ReadOption
	}{
		{"none", nil},
		{"family", []ReadOption{RowFilter(FamilyFilter("b|gc"))}},
		{"latest", []ReadOption{RowFilter(LatestNFilter(1))}},
		{"strip", []ReadOption{RowFilter(StripValueFilter())}},
		{"condition", []ReadOption{RowFilter(ConditionFilter(ColumnFilter("big"), StripValueFilter(), PassAllFilter()))}},
		{"limit 2000", []ReadOption{LimitRows(2000)}},
		{"sample", []ReadOption{RowFilter(RowKeyFilter(".*[37]"))}},
		// NB: fewer rows than raProgressRows between two that pass: the
		// readers send batches without rows to say how far they are.
		{"sparse", []ReadOption{RowFilter(RowKeyFilter("row0(0000|0003|0006|1200|1500|2700)"))}},
	}
	ranges := map[string]RowSet{
		"all":     InfiniteRange(""),
		"range":   NewRange("row00100", "row02900"),
		"list":    RowRangeList{NewRange("row00000", "row00500"), NewRange("row01000", "row02500")},
		"rowlist": rowListOf(0, raRows, 3),
	}
	off := openTestDB(t, WithReadAhead(0))
	tblOff := fillReadAhead(t, off)
	before := readAheads.started.Load()
	for _, d := range deals {
		on := readAheadDB(t, 1, dealing(d.readers, d.rows))
		tblOn := fillReadAhead(t, on)
		for rname, rs := range ranges {
			for _, f := range filters {
				t.Run(d.name+"/"+rname+"/"+f.name, func(t *testing.T) {
					want := readAll(t, tblOff, rs, f.opts...)
					got := readAll(t, tblOn, rs, f.opts...)
					if len(want) < 2 {
						t.Fatalf("only %d rows: the case proves nothing", len(want))
					}
					if !reflect.DeepEqual(want, got) {
						t.Error(firstRowDiff(want, got))
					}
				})
			}
		}
	}
	// NB: every read but the sparse ones (whose first row comes after
	// the hand-over) starts one goroutine per reader.
	if n, min := readAheads.started.Load()-before, len(ranges)*(len(filters)-1)*(1+2+2+3); n < int64(min) {
		t.Errorf("%d read-ahead goroutines started, want at least %d: the pipeline was not exercised", n, min)
	}
	if n := readAheads.running.Load(); n != 0 {
		t.Errorf("%d read-ahead goroutines still running after ReadRows returned", n)
	}
}

// rowListOf returns the keys row{i} for i in [from, to) step step.
func rowListOf(from, to, step int) RowList {
	var l RowList
	for i := from; i < to; i += step {
		l = append(l, fmt.Sprintf("row%05d", i))
	}
	return l
}

// TestReadAheadEarlyStop stops the callback at points before, at and after
// the hand-over and batch boundaries, and requires exactly the rows before
// it, and that the store is idle afterwards (Close would otherwise wait on
// an open iterator).
func TestReadAheadEarlyStop(t *testing.T) {
	for _, d := range deals {
		t.Run(d.name, func(t *testing.T) { testReadAheadEarlyStop(t, dealing(d.readers, d.rows)) })
	}
}

func testReadAheadEarlyStop(t *testing.T, deal Option) {
	db := readAheadDB(t, 5, deal)
	tbl := fillReadAhead(t, db)
	ctx := context.Background()
	for _, stop := range []int{1, 4, 5, 6, 7, 200, 261, 262, 263, 517, 1000, raRows - 1, raRows} {
		var got []string
		err := tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool {
			got = append(got, r.Key())
			return len(got) < stop
		})
		if err != nil {
			t.Fatalf("stop at %d: %v", stop, err)
		}
		if len(got) != stop {
			t.Fatalf("stop at %d: got %d rows", stop, len(got))
		}
		for i, k := range got {
			if want := fmt.Sprintf("row%05d", i); k != want {
				t.Fatalf("stop at %d: row %d is %q, want %q", stop, i, k, want)
			}
		}
		if n := readAheads.running.Load(); n != 0 {
			t.Fatalf("stop at %d: %d read-ahead goroutines still running", stop, n)
		}
	}
	db.MustReopen()
}

// TestReadAheadRowsIterator breaks out of a Rows loop mid-pipeline.
func TestReadAheadRowsIterator(t *testing.T) {
	db := readAheadDB(t, 2)
	tbl := fillReadAhead(t, db)
	n := 0
	for r, err := range tbl.Rows(context.Background(), InfiniteRange("")) {
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("row%05d", n); r.Key() != want {
			t.Fatalf("row %d is %q, want %q", n, r.Key(), want)
		}
		n++
		if n == 1500 {
			break
		}
	}
	if n != 1500 || readAheads.running.Load() != 0 {
		t.Fatalf("read %d rows, %d read-aheads running", n, readAheads.running.Load())
	}
}

// TestReadAheadError plants an undecodable key in the middle of the
// table: with and without read-ahead the rows before it arrive and then
// ReadRows fails with the same error.
func TestReadAheadError(t *testing.T) {
	for _, after := range []int{0, 3} {
		for _, d := range deals {
			t.Run(fmt.Sprintf("after=%d/%s", after, d.name), func(t *testing.T) {
				testReadAheadError(t, readAheadDB(t, after, dealing(d.readers, d.rows)))
			})
		}
	}
}

func testReadAheadError(t *testing.T, db *testDB) {
	tbl := fillReadAhead(t, db)
	ts, err := db.schema("t")
	if err != nil {
		t.Fatal(err)
	}
	bad := appendRowKey(nil, ts.id, "row01500x")
	bad = append(bad, "fam-without-terminator"...)
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(bad, []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	db.wrote()
	n := 0
	err = tbl.ReadRows(context.Background(), InfiniteRange(""), func(r Row) bool {
		if want := fmt.Sprintf("row%05d", n); r.Key() != want {
			t.Fatalf("row %d is %q, want %q", n, r.Key(), want)
		}
		n++
		return true
	})
	if !errors.Is(err, errBadKey) {
		t.Fatalf("ReadRows = %v, want errBadKey", err)
	}
	// NB: row01500 is still open when the bad key comes (the
	// cursor cannot know the row has ended), so it is not delivered.
	if n != 1500 {
		t.Errorf("%d rows before the error, want 1500 (row00000 to row01499)", n)
	}
}

// TestReadAheadCancel cancels the context from the callback after the
// hand-over: ReadRows returns the cancellation, having delivered rows in
// order up to some point.
func TestReadAheadCancel(t *testing.T) {
	db := readAheadDB(t, 10)
	tbl := fillReadAhead(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err := tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool {
		if want := fmt.Sprintf("row%05d", n); r.Key() != want {
			t.Fatalf("row %d is %q, want %q", n, r.Key(), want)
		}
		n++
		if n == 100 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadRows = %v after %d rows, want context.Canceled", err, n)
	}
	if n >= raRows || readAheads.running.Load() != 0 {
		t.Fatalf("%d rows delivered after the cancel at 100; %d read-aheads running", n, readAheads.running.Load())
	}
}

// TestReadAheadPanic panics in the callback after the hand-over: the panic
// reaches the caller, the read-ahead stops, and the store works on.
func TestReadAheadPanic(t *testing.T) {
	db := readAheadDB(t, 10)
	tbl := fillReadAhead(t, db)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want boom", r)
			}
		}()
		n := 0
		tbl.ReadRows(context.Background(), InfiniteRange(""), func(Row) bool {
			if n++; n == 700 {
				panic("boom")
			}
			return true
		})
	}()
	if n := readAheads.running.Load(); n != 0 {
		t.Fatalf("%d read-ahead goroutines running after the panic", n)
	}
	if got := len(readAll(t, tbl, InfiniteRange(""))); got != raRows {
		t.Fatalf("after the panic a scan read %d rows, want %d", got, raRows)
	}
	db.MustReopen()
}

// TestReadAheadWritesInCallback writes to the table being scanned from the
// callback: no deadlock, and the scan reads its snapshot, not the writes.
func TestReadAheadWritesInCallback(t *testing.T) {
	db := readAheadDB(t, 10)
	tbl := fillReadAhead(t, db)
	ctx := context.Background()
	n := 0
	err := tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool {
		n++
		mustApply(t, tbl, r.Key()+"~", set("a", "x", 1, "written during the scan"))
		return true
	})
	if err != nil || n != raRows {
		t.Fatalf("ReadRows = %v after %d rows, want nil after %d", err, n, raRows)
	}
	if got := len(readAll(t, tbl, InfiniteRange(""))); got != 2*raRows {
		t.Fatalf("after the scan the table has %d rows, want %d", got, 2*raRows)
	}
}

// TestReadAheadOff: no read-ahead for short reads, with WithReadAhead(0),
// with GOMAXPROCS 1, or in ReadRowsParallel.
func TestReadAheadOff(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, what string, read func()) {
		t.Helper()
		before := readAheads.started.Load()
		read()
		if n := readAheads.started.Load() - before; n != 0 {
			t.Errorf("%s started %d read-aheads, want none", what, n)
		}
	}
	def := readAheadDB(t, DefaultReadAhead)
	tbl := fillReadAhead(t, def)
	check(t, "a DefaultReadAhead-row range", func() { readAll(t, tbl, NewRange("row00000", fmt.Sprintf("row%05d", DefaultReadAhead))) })
	check(t, "LimitRows(DefaultReadAhead)", func() { readAll(t, tbl, InfiniteRange(""), LimitRows(DefaultReadAhead)) })
	check(t, "ReadRow", func() { tbl.ReadRow(ctx, "row00001") })
	check(t, "ReadRowsParallel", func() {
		if err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), func(Row) bool { return true }); err != nil {
			t.Fatal(err)
		}
	})
	before := readAheads.started.Load()
	readAll(t, tbl, InfiniteRange(""))
	if readAheads.started.Load() == before {
		t.Errorf("a %d-row scan read nothing ahead with the default WithReadAhead(%d)", raRows, DefaultReadAhead)
	}
	off := readAheadDB(t, 0)
	tblOff := fillReadAhead(t, off)
	check(t, "WithReadAhead(0)", func() { readAll(t, tblOff, InfiniteRange("")) })
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	check(t, "GOMAXPROCS 1", func() { readAll(t, tbl, InfiniteRange("")) })
}

// firstRowDiff describes the first difference between two reads: the row
// number, the keys there, and the cells of that row.
//
// NB: not cmp.Diff of the whole reads, which walks 300 KB values byte by
// byte for minutes.
func firstRowDiff(want, got []Row) string {
	for i := range min(len(want), len(got)) {
		if !reflect.DeepEqual(want[i], got[i]) {
			return fmt.Sprintf("row %d differs with read-ahead: %q without, %q with (-without +with):\n%s",
				i, want[i].Key(), got[i].Key(), cmp.Diff(cellStrings([]Row{want[i]}), cellStrings([]Row{got[i]})))
		}
	}
	return fmt.Sprintf("%d rows without read-ahead, %d with", len(want), len(got))
}
