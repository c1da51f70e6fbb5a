package bigtable

import (
	"context"
	"testing"
)

// TestMaxValueSize writes and reads back a value of exactly MaxValueSize.
func TestMaxValueSize(t *testing.T) {
	skipShort(t, "writes 100 MiB")
	db := openTestDB(t)
	tbl := db.mustTable("t", "contents")
	v := make([]byte, MaxValueSize)
	v[0], v[len(v)-1] = 1, 2
	m := NewMutation()
	m.Set("contents", "", 1, v)
	mustApply(t, tbl, "big", m)
	db.MustReopen()
	r, err := db.DB.Open("t").ReadRow(context.Background(), "big")
	if err != nil {
		t.Fatal(err)
	}
	got := r["contents"][0].Value
	if len(got) != MaxValueSize || got[0] != 1 || got[len(got)-1] != 2 {
		t.Errorf("read back %d bytes", len(got))
	}
}
