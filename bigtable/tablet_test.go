package bigtable

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/webtable/webtable/internal/keyspace"
)

func TestTabletsAndSampleRowKeys(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	for _, r := range []string{"a", "b", "c"} {
		m := NewMutation()
		m.Set("f", "q", 1, make([]byte, 1000))
		m.Set("f", "q", 2, make([]byte, 1000))
		mustApply(t, tbl, r, m)
	}
	tablets, err := db.Tablets(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(tablets) != 1 || tablets[0].Start != "" || tablets[0].End != "" || tablets[0].Rows != 3 {
		t.Errorf("Tablets = %+v", tablets)
	}
	if b := tablets[0].Bytes; b < 6000 || b > 8000 {
		t.Errorf("Tablets bytes = %d, want about 6000", b)
	}
	keys, err := tbl.SampleRowKeys(ctx)
	if err != nil || !slices.Equal(keys, []string{""}) {
		t.Errorf("SampleRowKeys = %q, %v", keys, err)
	}
	if _, err := db.Tablets(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Tablets of missing table = %v", err)
	}
	if _, err := db.Open("nope").SampleRowKeys(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("SampleRowKeys of missing table = %v", err)
	}
}

// mustTablets returns the tablets of a table and checks that they cover
// its key space without gaps or overlaps, and that SampleRowKeys agrees.
func mustTablets(t testing.TB, db *DB, table string) []TabletInfo {
	t.Helper()
	ctx := context.Background()
	// NB: no split between the two calls.
	db.splitMu.Lock()
	defer db.splitMu.Unlock()
	infos, err := db.Tablets(ctx, table)
	if err != nil {
		t.Fatalf("Tablets(%q) = %v", table, err)
	}
	list := make([]*tablet, len(infos))
	ends := make([]string, len(infos))
	for i, in := range infos {
		list[i] = &tablet{start: in.Start, end: in.End}
		ends[i] = in.End
	}
	if err := checkCover(list); err != nil {
		t.Fatalf("Tablets(%q) = %+v: %v", table, infos, err)
	}
	keys, err := db.Open(table).SampleRowKeys(ctx)
	if err != nil || !slices.Equal(keys, ends) {
		t.Fatalf("SampleRowKeys(%q) = %q, %v; want the tablet ends %q", table, keys, err, ends)
	}
	return infos
}

func mustSplit(t testing.TB, db *DB) {
	t.Helper()
	if err := db.splitTablets(context.Background()); err != nil {
		t.Fatalf("splitTablets() = %v", err)
	}
}

func kiloRow(i int) *Mutation {
	m := NewMutation()
	m.Set("f", "", 1, make([]byte, 1000))
	return m
}

// TestTabletSplitsAtThreshold writes 1000-byte rows one at a time into a
// table whose tablets split at 16 KiB: the first split comes with the write
// that takes the table past 16 KiB, at a row boundary near the middle, and
// no tablet ever grows much past the threshold.
func TestTabletSplitsAtThreshold(t *testing.T) {
	const size = 16 << 10
	db := openTestDB(t, WithTabletSplitSize(size), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	written := map[string]bool{}
	var prevBytes int64
	for i := range 120 {
		row := fmt.Sprintf("row%03d", (i*37)%120) // out of order
		mustApply(t, tbl, row, kiloRow(i))
		written[row] = true
		mustSplit(t, db.DB)
		infos := mustTablets(t, db.DB, "t")
		total, rows := int64(0), int64(0)
		for _, in := range infos {
			total += in.Bytes
			rows += in.Rows
			if in.Bytes >= size+1100 {
				t.Errorf("after %d rows: tablet %+v holds more than the split size and a row", i+1, in)
			}
			if in.Start != "" && !written[in.Start] {
				t.Errorf("tablet starts at %q, which is not a row", in.Start)
			}
		}
		if rows != int64(len(written)) {
			t.Errorf("after %d rows: tablets count %d rows", i+1, rows)
		}
		switch {
		case len(infos) == 1 && total >= size:
			t.Fatalf("after %d rows: %d bytes in one tablet, want a split at %d", i+1, total, size)
		case len(infos) == 2 && prevBytes != 0:
			// The first split: at the threshold, and near the middle.
			if prevBytes >= size || total < size {
				t.Errorf("first split with %d bytes, %d before the last write; want it crossing %d", total, prevBytes, size)
			}
			if d := infos[0].Bytes - infos[1].Bytes; d > 1100 || d < -1100 {
				t.Errorf("first split into %d and %d bytes, want halves within a row", infos[0].Bytes, infos[1].Bytes)
			}
			prevBytes = 0
		case len(infos) == 1:
			prevBytes = total
		}
	}
	if n := len(mustTablets(t, db.DB, "t")); n < 8 || n > 16 {
		t.Errorf("120 KB in %d tablets of at most 16 KiB split in halves, want 8 to 16", n)
	}
}

// TestTabletBackgroundSplit relies on the splitter goroutine alone.
func TestTabletBackgroundSplit(t *testing.T) {
	split := make(chan string, 100)
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage == "after commit" {
				trySend(split, stage)
			}
		}
	})
	db := openTestDB(t, WithTabletSplitSize(8<<10), hook)
	tbl := db.mustTable("t", "f")
	var rows []string
	var muts []*Mutation
	for i := range 20 {
		rows = append(rows, fmt.Sprintf("r%02d", i))
		muts = append(muts, kiloRow(i))
	}
	if errs, err := tbl.ApplyBulk(context.Background(), rows, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	select {
	case <-split:
	case <-time.After(30 * time.Second):
		t.Fatal("no split within 30s of writing 20 KB past an 8 KiB split size")
	}
	if infos := mustTablets(t, db.DB, "t"); len(infos) < 2 {
		t.Errorf("after a split: %+v", infos)
	}
}

// TestTabletsOneHugeRow: a tablet of one row cannot split, and does not
// keep trying at every write.
func TestTabletsOneHugeRow(t *testing.T) {
	db := openTestDB(t, WithTabletSplitSize(4<<10), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	for i := range 10 {
		mustApply(t, tbl, "only", set("f", fmt.Sprint(i), 1, string(make([]byte, 1000))))
	}
	mustSplit(t, db.DB)
	if infos := mustTablets(t, db.DB, "t"); len(infos) != 1 || infos[0].Rows != 1 {
		t.Errorf("one row of 10 KB: %+v, want one tablet", infos)
	}
	ts, _ := db.schema("t")
	if at, b := ts.tablets.load()[0].splitAt.Load(), ts.tablets.load()[0].bytes.Load(); at <= b {
		t.Errorf("unsplittable tablet retries at %d bytes, want after another split size", at)
	}
	mustApply(t, tbl, "other", kiloRow(0))
	mustSplit(t, db.DB)
	mustTablets(t, db.DB, "t")
}

func TestTabletsSurviveReopenAndDeleteTable(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithTabletSplitSize(4<<10), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	for i := range 30 {
		mustApply(t, tbl, fmt.Sprintf("r%02d", i), kiloRow(i))
	}
	mustSplit(t, db.DB)
	before := mustTablets(t, db.DB, "t")
	if len(before) < 4 {
		t.Fatalf("30 KB at 4 KiB per tablet: %+v", before)
	}
	db.MustReopen()
	after := mustTablets(t, db.DB, "t")
	if !slices.Equal(before, after) {
		t.Errorf("after reopen: %+v\nwant %+v", after, before)
	}
	// Bytes written since the last count are remembered across a clean
	// Close: the tablet still splits when due.
	tbl = db.DB.Open("t")
	mustApply(t, tbl, "r99", set("f", "", 1, string(make([]byte, 3000))))
	db.MustReopen()
	mustSplit(t, db.DB)
	if n := len(mustTablets(t, db.DB, "t")); n <= len(after) {
		t.Errorf("tablet that passed the split size before a reopen did not split: %d tablets", n)
	}
	if err := db.DeleteTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, db.DB, metaTabletPfx); n != 0 {
		t.Errorf("DeleteTable left %d tablet records", n)
	}
	db.mustTable("t", "f")
	db.MustReopen()
	if infos := mustTablets(t, db.DB, "t"); len(infos) != 1 || infos[0].Rows != 0 {
		t.Errorf("re-created table: %+v", infos)
	}
}

func countKeys(t testing.TB, db *DB, prefix []byte) int {
	t.Helper()
	n := 0
	txn := db.bdb.NewTransaction(false)
	defer txn.Discard()
	it := newIterator(txn, []keyRange{{prefix, keyspace.PrefixEnd(prefix)}})
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		n++
	}
	return n
}

// TestTabletsProperty applies random writes and deletes, with splits
// between them, and checks that the tablets always cover the table exactly,
// count exactly the rows in their ranges, and that ReadRowsParallel reads
// the same rows as ReadRows.
func TestTabletsProperty(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			testTabletsProperty(t, uint64(seed))
		})
	}
}

func testTabletsProperty(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 99))
	db := openTestDB(t, WithTabletSplitSize(int64(2<<10+rng.IntN(6<<10))), WithGCInterval(0))
	db.mustTable("t", "f", "g")
	model := map[string]bool{}
	alphabet := []string{"a", "b", "\x00", "\xff", "ab"}
	randRow := func() string {
		s := ""
		for n := 1 + rng.IntN(4); n > 0; n-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		return s
	}
	randSet := func() *Mutation {
		m := NewMutation()
		m.Set([]string{"f", "g"}[rng.IntN(2)], randRow(), Timestamp(rng.IntN(5)), make([]byte, rng.IntN(1500)))
		return m
	}
	for step := range 300 {
		tbl := db.DB.Open("t")
		switch op := rng.IntN(10); {
		case op < 6:
			row := randRow()
			mustApply(t, tbl, row, randSet())
			model[row] = true
		case op < 8:
			row := randRow()
			m := NewMutation()
			m.DeleteRow()
			mustApply(t, tbl, row, m)
			delete(model, row)
		default:
			var rows []string
			var muts []*Mutation
			for range 1 + rng.IntN(20) {
				row := randRow()
				rows = append(rows, row)
				muts = append(muts, randSet())
				model[row] = true
			}
			if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
				t.Fatal(err, errs)
			}
		}
		if step%10 == 9 {
			mustSplit(t, db.DB)
			checkTabletsAgainstModel(t, db.DB, model)
		}
		if step == 150 {
			mustSplit(t, db.DB) // no split pending: the tablets are at rest
			before := mustTablets(t, db.DB, "t")
			db.MustReopen()
			if after := mustTablets(t, db.DB, "t"); !slices.Equal(before, after) {
				t.Fatalf("after reopen: %+v\nwant %+v", after, before)
			}
		}
	}
	if n := len(mustTablets(t, db.DB, "t")); n < 2 {
		t.Errorf("no split in 300 random writes: %d tablets", n)
	}
}

func checkTabletsAgainstModel(t *testing.T, db *DB, model map[string]bool) {
	t.Helper()
	ctx := context.Background()
	infos := mustTablets(t, db, "t")
	var rows []string
	for r := range model {
		rows = append(rows, r)
	}
	sort.Strings(rows)
	for _, in := range infos {
		want := 0
		for _, r := range rows {
			if r >= in.Start && (in.End == "" || r < in.End) {
				want++
			}
		}
		if in.Rows != int64(want) {
			t.Errorf("tablet [%q, %q) counts %d rows, want %d", in.Start, in.End, in.Rows, want)
		}
	}
	tbl := db.Open("t")
	for _, rs := range []RowSet{InfiniteRange(""), NewRange("a", "b\xff"), PrefixRange("\x00"), RowList{"a", "zz", "\xff"}} {
		var ordered []string
		for r, err := range tbl.Rows(ctx, rs) {
			if err != nil {
				t.Fatal(err)
			}
			ordered = append(ordered, r.Key())
		}
		got := make(chan string, len(rows)+1)
		if err := tbl.ReadRowsParallel(ctx, rs, func(r Row) bool { got <- r.Key(); return true }); err != nil {
			t.Fatalf("ReadRowsParallel(%v) = %v", rs, err)
		}
		close(got)
		var par []string
		for k := range got {
			par = append(par, k)
		}
		sort.Strings(par)
		if !slices.Equal(par, ordered) {
			t.Errorf("ReadRowsParallel(%v) read %q, ReadRows %q", rs, par, ordered)
		}
	}
}

// TestTabletsOfStoreWithoutRecords opens a store written before tablets
// existed (no tablet records): each table is one tablet, which the splitter
// counts and splits at once.
func TestTabletsOfStoreWithoutRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(dir, WithGCInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "f"); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := db.Open("t").Apply(ctx, fmt.Sprintf("r%02d", i), kiloRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	raw, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithValueThreshold(DefaultValueThreshold))
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.DropPrefix(metaTabletPfx); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	split := make(chan struct{}, 100)
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage == "after commit" {
				trySend(split, struct{}{})
			}
		}
	})
	db, err = Open(dir, WithGCInterval(0), WithTabletSplitSize(8<<10), hook)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	select {
	case <-split:
	case <-time.After(30 * time.Second):
		t.Fatal("the tablet of a store without tablet records was not counted and split")
	}
	mustSplit(t, db)
	infos := mustTablets(t, db, "t")
	rows := int64(0)
	for _, in := range infos {
		rows += in.Rows
	}
	if len(infos) < 3 || rows != 30 {
		t.Errorf("30 KB in tablets of 8 KiB: %+v", infos)
	}
}

// TestTabletsCountAfterGCAndFamilyDelete: deletes outside Apply (the GC
// sweep, DeleteColumnFamily) make the tablets count again.
func TestTabletsCountAfterGCAndFamilyDelete(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f", "g")
	mustApply(t, tbl, "old", set("f", "q", 1, "x")) // 1970: any age policy collects it
	mustApply(t, tbl, "new", set("g", "q", Now(), "y"))
	if infos := mustTablets(t, db.DB, "t"); infos[0].Rows != 2 {
		t.Fatalf("before GC: %+v", infos)
	}
	if err := db.SetGCPolicy(ctx, "t", "f", MaxAgePolicy(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// NB: tablets count what is on disk; collected cells leave it at GC.
	if err := db.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if infos := mustTablets(t, db.DB, "t"); infos[0].Rows != 1 {
		t.Errorf("after GC emptied a row: %+v", infos)
	}
	if err := db.DeleteColumnFamily(ctx, "t", "g"); err != nil {
		t.Fatal(err)
	}
	if infos := mustTablets(t, db.DB, "t"); infos[0].Rows != 0 || infos[0].Bytes != 0 {
		t.Errorf("after DeleteColumnFamily emptied the table: %+v", infos)
	}
}

// TestTabletWrittenOverIsNotRecountedAtEveryWrite writes the cells of a
// tablet just under the split size over and over: its counter runs ahead
// of its size (it adds every write), and each count finds it too small to
// split. A count walks every key of the tablet, so the next one waits: a
// quarter split size of writes after the first count, then, once a count
// found the tablet had not grown, a whole split size (recountWait). At a
// 16 KiB split size that is at most one count per 16 KiB written, where a
// count at every crossing of the split size came every write and one per
// quarter split size came every 4 KiB.
func TestTabletWrittenOverIsNotRecountedAtEveryWrite(t *testing.T) {
	const size = 16 << 10
	var counts atomic.Int64
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage == "counted" {
				counts.Add(1)
			}
		}
	})
	db := openTestDB(t, WithTabletSplitSize(size), WithGCInterval(0), hook)
	tbl := db.mustTable("t", "f")
	rows := 0
	for ; ; rows++ {
		infos := mustTablets(t, db.DB, "t")
		if len(infos) != 1 {
			t.Fatalf("after %d rows: %d tablets, want one", rows, len(infos))
		}
		if infos[0].Bytes+1100 > size {
			break
		}
		mustApply(t, tbl, fmt.Sprintf("row%02d", rows), kiloRow(rows))
	}
	counts.Store(0)
	const writes = 200
	for i := range writes {
		mustApply(t, tbl, fmt.Sprintf("row%02d", (i*7)%rows), kiloRow(i)) // the same cell again
		mustSplit(t, db.DB)
	}
	if infos := mustTablets(t, db.DB, "t"); len(infos) != 1 {
		t.Errorf("after writing over %d rows: %+v, want one tablet", rows, infos)
	}
	most := int64(writes*1100/size + 3)
	if n := counts.Load(); n > most {
		t.Errorf("%d writes over a tablet of %d rows just under the split size: counted %d times, want at most %d", writes, rows, n, most)
	}
}

// TestTabletGrowingAfterWritesOverSplits: a tablet written over until its
// counts wait a whole split size (see the test above) still splits once it
// grows again, before it holds two split sizes.
func TestTabletGrowingAfterWritesOverSplits(t *testing.T) {
	const size = 16 << 10
	db := openTestDB(t, WithTabletSplitSize(size), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	rows := 0
	for ; rows < 14; rows++ {
		mustApply(t, tbl, fmt.Sprintf("row%03d", rows), kiloRow(rows))
	}
	for i := range 100 {
		mustApply(t, tbl, fmt.Sprintf("row%03d", i%rows), kiloRow(i))
		mustSplit(t, db.DB)
	}
	ts, _ := db.schema("t")
	if tb := ts.tablets.load()[0]; tb.splitAt.Load()-tb.lastCount.Load() < size {
		t.Fatalf("after writes over: next count after %d bytes of writes, want a split size (%d)", tb.splitAt.Load()-tb.lastCount.Load(), size)
	}
	for ; ; rows++ {
		infos := mustTablets(t, db.DB, "t")
		if len(infos) > 1 {
			break
		}
		if infos[0].Bytes > 2*size {
			t.Fatalf("a tablet of %d bytes (%d rows) has not split at a split size of %d", infos[0].Bytes, infos[0].Rows, size)
		}
		mustApply(t, tbl, fmt.Sprintf("row%03d", rows), kiloRow(rows))
		mustSplit(t, db.DB)
	}
}

// TestRecountWait: the wait before a tablet's next count, from how much
// the writes between its last two counts made it grow.
func TestRecountWait(t *testing.T) {
	const size = 1000
	for _, c := range []struct {
		name               string
		last, counter, now int64
		want               int64
	}{
		{"first count", -1, 1000, 900, 250},
		{"first count, far under", -1, 1000, 100, 900},
		{"all growth", 500, 1000, 1000 - 1, 250},
		{"no growth", 900, 1200, 900, 1000},
		{"shrank", 900, 1200, 800, 1000},
		{"no writes counted", 900, 900, 950, 250},
		{"half growth", 700, 900, 800, 400},
		{"a tenth grows", 800, 1000, 820, 1000},
		{"two thirds grow", 600, 900, 800, 300},
	} {
		if got := recountWait(size, c.last, c.counter, c.now); got != c.want {
			t.Errorf("%s: recountWait(%d, last %d, counter %d, now %d) = %d, want %d", c.name, size, c.last, c.counter, c.now, got, c.want)
		}
	}
}
