package bigtable

import (
	"fmt"
	"strings"
	"testing"
)

// TestScanRowsOwnTheirBytes: the rows of a scan share allocations (see
// slab.go), yet each row's key, items and values stay the caller's: a
// caller that overwrites a value, appends to it or to a row's items
// changes no other row.
func TestScanRowsOwnTheirBytes(t *testing.T) {
	const n, after = 300, 100 // rows, and where a read reads ahead
	db := readAheadDB(t, after, WithGCInterval(0))
	tbl := db.mustTable("t", "f", "g")
	want := func(i int, fam string) string {
		return fmt.Sprintf("%s-%d-%s", fam, i, strings.Repeat("v", i%7*300)) // some past slabMaxValue/8, one empty-free
	}
	for i := range n {
		m := NewMutation()
		m.Set("f", "c", 1, []byte(want(i, "f")))
		if i%2 == 0 { // odd rows have one family: a Row of one slice
			m.Set("g", "c", 1, []byte(want(i, "g")))
		}
		mustApply(t, tbl, fmt.Sprintf("row%03d", i), m)
	}
	families := func(i int) []string {
		if i%2 == 0 {
			return []string{"f", "g"}
		}
		return []string{"f"}
	}
	for _, readAhead := range []bool{false, true} {
		t.Run(fmt.Sprintf("readAhead=%v", readAhead), func(t *testing.T) {
			var opts []ReadOption
			rowsWanted := n
			if !readAhead {
				rowsWanted = after - 1 // NB: a read this short never reads ahead
				opts = append(opts, LimitRows(int64(rowsWanted)))
			}
			rows := readAll(t, tbl, InfiniteRange(""), opts...)
			if len(rows) != rowsWanted {
				t.Fatalf("read %d rows, want %d", len(rows), rowsWanted)
			}
			// Each row is checked before it is changed, after the rows
			// before it were: a value or items slice not capped at its
			// end would let an append write into the next row's.
			for i, r := range rows {
				for _, fam := range families(i) {
					items := r[fam]
					if len(items) != 1 || string(items[0].Value) != want(i, fam) {
						t.Fatalf("row %d family %s: %+v after the caller changed the rows before it", i, fam, items)
					}
					v := items[0].Value
					_ = append(v, "XXXXXXXXXXXXXXXX"...)
					_ = append(items, ReadItem{Row: "bogus"})
					for j := range v {
						v[j] = 'X'
					}
				}
			}
			rows2 := readAll(t, tbl, InfiniteRange(""), opts...)
			for i, r := range rows {
				key := fmt.Sprintf("row%03d", i)
				for _, fam := range families(i) {
					if r.Key() != key || r[fam][0].Row != key {
						t.Errorf("row %d: key %q, items %+v after the caller changed every row, want %q", i, r.Key(), r, key)
					}
					if got := string(rows2[i][fam][0].Value); got != want(i, fam) {
						t.Errorf("row %d family %s: a second read got %q, want %q", i, fam, got, want(i, fam))
					}
				}
			}
		})
	}
}
