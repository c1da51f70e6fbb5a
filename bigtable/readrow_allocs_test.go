package bigtable

import (
	"context"
	"fmt"
	"testing"
)

// TestReadRowAllocs bounds the allocations of a point read of a one-cell
// row, the store's hottest read: the Row map (two), its item slice, the
// value, and what Badger's iterator and value log allocate (six). A read
// takes no closure, no settings and no column strings of its own (the
// column is the one the read before decoded).
func TestReadRowAllocs(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	ctx := context.Background()
	const rows = 64
	for i := range rows {
		m := NewMutation()
		m.Set("f", "col", 1, []byte(fmt.Sprint("value ", i)))
		mustApply(t, tbl, fmt.Sprintf("row%03d", i), m)
	}
	keys := make([]string, rows)
	for i := range keys {
		keys[i] = fmt.Sprintf("row%03d", (i*37)%rows) // not in key order
	}
	i := 0
	read := func() {
		r, err := tbl.ReadRow(ctx, keys[i%rows])
		if err != nil || len(r["f"]) != 1 || r["f"][0].Column != "f:col" {
			t.Fatalf("ReadRow(%q) = %v, %v", keys[i%rows], r, err)
		}
		i++
	}
	read()
	most := 10
	if raceEnabled {
		most += 2 // readers the pool dropped (see race_on_test.go)
	}
	if a := testing.AllocsPerRun(1000, read); a > float64(most) {
		t.Errorf("ReadRow of a one-cell row: %v allocations, want at most %d", a, most)
	}
}
