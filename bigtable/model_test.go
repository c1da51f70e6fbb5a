package bigtable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestRowSetsAgainstModel reads random row sets over random keys (rich in
// 0x00 and 0xFF, and prefixes of each other) and compares with a sorted
// slice filtered by RowRange.Contains.
func TestRowSetsAgainstModel(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xfe, 0xff}
	randKey := func(minLen int) string {
		b := make([]byte, minLen+rng.IntN(4))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	var keys []string
	var rows []string
	var muts []*Mutation
	for range 300 {
		k := randKey(1)
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		rows = append(rows, k)
		muts = append(muts, set("f", "q", 1, k))
	}
	if errs, err := tbl.ApplyBulk(context.Background(), rows, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	slices.Sort(keys)
	ctors := []func(a, b string) RowRange{NewRange, NewOpenRange, NewClosedRange, NewOpenClosedRange,
		func(a, _ string) RowRange { return PrefixRange(a) },
		func(a, _ string) RowRange { return InfiniteRange(a) },
		func(_, b string) RowRange { return InfiniteReverseRange(b) }}
	for i := range 300 {
		var rs RowSet
		var in func(string) bool
		switch i % 3 {
		case 0:
			r := ctors[rng.IntN(len(ctors))](randKey(0), randKey(0))
			rs, in = r, r.Contains
		case 1:
			var list RowRangeList
			for range 1 + rng.IntN(3) {
				list = append(list, ctors[rng.IntN(len(ctors))](randKey(0), randKey(0)))
			}
			rs = list
			in = func(k string) bool {
				return slices.ContainsFunc(list, func(r RowRange) bool { return r.Contains(k) })
			}
		case 2:
			var list RowList
			for range rng.IntN(5) {
				if rng.IntN(2) == 0 {
					list = append(list, keys[rng.IntN(len(keys))])
				} else {
					list = append(list, randKey(1))
				}
			}
			rs = list
			in = func(k string) bool { return slices.Contains(list, k) }
		}
		var want, got []string
		for _, k := range keys {
			if in(k) {
				want = append(want, k)
			}
		}
		for _, r := range readAll(t, tbl, rs) {
			got = append(got, r.Key())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ReadRows(%q) = %q, want %q", fmt.Sprint(rs), got, want)
		}
	}
}

// TestGCAtReadTime: cells that age out are invisible at once, before any
// write or GC pass touches them; GC then removes them from disk.
func TestGCAtReadTime(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f", "g")
	old := Now() - Timestamp(2*time.Hour/time.Microsecond)
	for _, r := range []string{"a", "b"} {
		m := NewMutation()
		m.Set("f", "q", old, []byte("old"))
		m.Set("f", "q", Now(), []byte("new"))
		m.Set("g", "q", old, []byte("other family"))
		mustApply(t, tbl, r, m)
	}
	if err := db.SetGCPolicy(ctx, "t", "f", MaxAgePolicy(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, r := range readAll(t, tbl, InfiniteRange("")) {
		if len(r["f"]) != 1 || string(r["f"][0].Value) != "new" || len(r["g"]) != 1 {
			t.Errorf("row %q = %q", r.Key(), cellStrings([]Row{r}))
		}
	}
	if n := rawCells(t, db.DB); n != 6 {
		t.Fatalf("%d cells on disk before GC, want 6", n)
	}
	if err := db.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rawCells(t, db.DB); n != 4 {
		t.Errorf("%d cells on disk after GC, want 4", n)
	}
	// Whole-row filters see the same cells.
	rows := readAll(t, tbl, InfiniteRange(""), RowFilter(ConditionFilter(ValueFilter("old"), PassAllFilter(), BlockAllFilter())))
	if len(rows) != 0 {
		t.Errorf("condition saw collected cells: %q", cellStrings(rows))
	}
}
