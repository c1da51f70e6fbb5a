package bigtable

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// rawDump returns every data cell on disk, key and value, in key order.
func rawDump(t *testing.T, db *DB) []string {
	t.Helper()
	var out []string
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{dataSpace}, PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%q=%q", it.Item().Key(), v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPruneBeforeWritesMatchesAfter: pruning on write with an iterator
// made before the transaction's writes (merging in the versions the
// transaction wrote) leaves on disk exactly the cells that pruning with an
// iterator made after the writes leaves, for random bulk and single-row
// writes mixing sets (new columns, repeated columns and timestamps,
// qualifiers that extend each other, rows written twice in one bulk) with
// every kind of delete, over families with different policies.
func TestPruneBeforeWritesMatchesAfter(t *testing.T) {
	ctx := context.Background()
	policies := map[string]GCPolicy{
		"f": MaxVersionsPolicy(2),
		"g": MaxVersionsPolicy(1),
		"h": UnionPolicy(MaxVersionsPolicy(3), MaxAgePolicy(1000*time.Hour)),
		"n": NoGcPolicy(),
	}
	open := func(opts ...Option) (*DB, *Table) {
		db := openTestDB(t, append(opts, WithGCInterval(0))...)
		tbl := db.mustTable("t", "f", "g", "h", "n")
		for fam, p := range policies {
			if err := db.SetGCPolicy(ctx, "t", fam, p); err != nil {
				t.Fatal(err)
			}
		}
		return db.DB, tbl
	}
	fast, fastTbl := open()
	ref, refTbl := open(optionFunc(func(o *options) { o.pruneAfterWrites = true }))
	rng := rand.New(rand.NewPCG(16, 3))
	fams := []string{"f", "g", "h", "n"}
	quals := []string{"", "q", "q0", "q00", "r", "s\x00t"}
	now := Now()
	mutation := func(step int) *Mutation {
		m := NewMutation()
		for range 1 + rng.IntN(5) {
			fam, qual := fams[rng.IntN(len(fams))], quals[rng.IntN(len(quals))]
			switch k := rng.IntN(20); {
			case k == 0:
				m.DeleteRow()
			case k == 1:
				m.DeleteCellsInFamily(fam)
			case k == 2:
				m.DeleteCellsInColumn(fam, qual)
			case k == 3:
				start := now + Timestamp(rng.IntN(30))
				m.DeleteTimestampRange(fam, qual, start, start+Timestamp(1+rng.IntN(10)))
			default:
				m.Set(fam, qual, now+Timestamp(rng.IntN(30)), []byte(fmt.Sprint(step)))
			}
		}
		return m
	}
	for step := range 100 {
		var rows []string
		var muts []*Mutation
		for range 1 + rng.IntN(10) {
			rows = append(rows, fmt.Sprintf("r%02d", rng.IntN(25)))
			muts = append(muts, mutation(step))
		}
		for _, tbl := range []*Table{fastTbl, refTbl} {
			if rng.IntN(4) == 0 || len(rows) == 1 {
				for i, row := range rows {
					if err := tbl.Apply(ctx, row, muts[i]); err != nil {
						t.Fatalf("step %d: Apply(%q) = %v", step, row, err)
					}
				}
			} else if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
				t.Fatalf("step %d: ApplyBulk = %v, %v", step, errs, err)
			}
		}
		got, want := rawDump(t, fast), rawDump(t, ref)
		if !slicesEqual(got, want) {
			t.Fatalf("step %d (rows %q): on disk after pruning before the writes:\n%s\nafter pruning after them:\n%s", step, rows, got, want)
		}
	}
	visible := 0
	for _, r := range readAll(t, fastTbl, InfiniteRange("")) {
		for _, items := range r {
			visible += len(items)
		}
	}
	if n := rawCells(t, fast); n != visible {
		t.Errorf("%d cells on disk, %d visible", n, visible)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal([]byte(a[i]), []byte(b[i])) {
			return false
		}
	}
	return true
}

// TestSetOnlyVersion: a SetOnlyVersion write reads nothing to prune, so a wrong
// word leaves the older versions on disk; reads still return only what the
// policy keeps, the column's next Set prunes them, and so does a GC pass.
// A bulk call of nothing else is blind (pipelined) even into a GC'd family.
func TestSetOnlyVersion(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "g")
	if err := db.SetGCPolicy(ctx, "t", "g", MaxVersionsPolicy(1)); err != nil {
		t.Fatal(err)
	}
	unpruned := func(ts Timestamp, v string) *Mutation {
		m := NewMutation()
		m.SetOnlyVersion("g", "q", ts, []byte(v))
		return m
	}
	newest := func(row string) string {
		r, err := tbl.ReadRow(ctx, row)
		if err != nil || len(r["g"]) != 1 {
			t.Fatalf("ReadRow(%q) = %v, %v: want one cell", row, r, err)
		}
		return string(r["g"][0].Value)
	}
	mustApply(t, tbl, "a", set("g", "q", 1, "one"))
	mustApply(t, tbl, "a", set("g", "q", 2, "two"))
	if n := rawCells(t, db.DB); n != 1 {
		t.Fatalf("%d cells on disk after two Sets, want 1 (pruned)", n)
	}
	if err := tbl.Apply(ctx, "a", unpruned(3, "three")); err != nil {
		t.Fatal(err)
	}
	if n := rawCells(t, db.DB); n != 2 {
		t.Fatalf("%d cells on disk after SetOnlyVersion, want 2 (not pruned)", n)
	}
	if got := newest("a"); got != "three" {
		t.Fatalf("row a reads %q, want three", got)
	}
	mustApply(t, tbl, "a", set("g", "q", 4, "four"))
	if n := rawCells(t, db.DB); n != 1 {
		t.Fatalf("%d cells on disk after the next Set, want 1", n)
	}

	before := pipelinedChunks.Load()
	var rows []string
	var muts []*Mutation
	for i := range 1500 {
		rows = append(rows, fmt.Sprintf("b%04d", i%500))
		muts = append(muts, unpruned(Timestamp(10+i), fmt.Sprint(i)))
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		t.Fatal(errs, err)
	}
	if n := pipelinedChunks.Load() - before; n < 2 {
		t.Errorf("%d chunks of SetOnlyVersion pipelined, want them all (at least 2)", n)
	}
	if got := newest("b0007"); got != "1007" {
		t.Fatalf("row b0007 reads %q, want 1007", got)
	}
	if n := rawCells(t, db.DB); n != 1+1500 {
		t.Fatalf("%d cells on disk, want %d (nothing pruned)", n, 1+1500)
	}
	if err := db.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rawCells(t, db.DB); n != 1+500 {
		t.Fatalf("%d cells on disk after GC, want %d", n, 1+500)
	}
}
