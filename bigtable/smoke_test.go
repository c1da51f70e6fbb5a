package bigtable

import (
	"context"
	"slices"
	"testing"
)

// TestDataModelExample is the example of the data model: versions 15:"y" and
// 4:"m" of A:foo in row aaa.
func TestDataModelExample(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "A")
	m := NewMutation()
	m.Set("A", "foo", 15, []byte("y"))
	m.Set("A", "foo", 4, []byte("m"))
	mustApply(t, tbl, "aaa", m)

	asOf := func(ts Timestamp) string {
		t.Helper()
		opts := []ReadOption{RowFilter(LatestNFilter(1))}
		if ts > 0 {
			opts = []ReadOption{RowFilter(ChainFilters(TimestampRangeFilterMicros(0, ts+1), LatestNFilter(1)))}
		}
		r, err := tbl.ReadRow(ctx, "aaa", opts...)
		if err != nil {
			t.Fatalf("ReadRow: %v", err)
		}
		if len(r["A"]) == 0 {
			return "<none>"
		}
		return string(r["A"][0].Value)
	}
	for _, tc := range []struct {
		ts   Timestamp
		want string
	}{{0, "y"}, {15, "y"}, {14, "m"}, {4, "m"}, {3, "<none>"}, {2, "<none>"}} {
		if got := asOf(tc.ts); got != tc.want {
			t.Errorf("read as of %d = %q, want %q", tc.ts, got, tc.want)
		}
	}
	r, err := tbl.ReadRow(ctx, "aaa")
	if err != nil {
		t.Fatal(err)
	}
	got := cellStrings([]Row{r})
	want := []string{"aaa A:foo@15=y", "aaa A:foo@4=m"}
	if !slices.Equal(got, want) {
		t.Errorf("plain read = %q, want %q", got, want)
	}
	if r.Key() != "aaa" {
		t.Errorf("Key() = %q, want aaa", r.Key())
	}
}
