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
