package bigtable

import (
	"context"
	"fmt"
	"testing"
)

// TestDeleteOnlyVersion: DeleteOnlyVersion deletes exactly the version at
// its timestamp (not the column's other versions, nor the row's other
// columns), in Apply and ApplyBulk alike, and a bulk call of nothing else
// (or of it beside SetOnlyVersion) is blind: pipelined, reading nothing.
func TestDeleteOnlyVersion(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "g")
	if err := db.SetGCPolicy(ctx, "t", "g", MaxVersionsPolicy(3)); err != nil {
		t.Fatal(err)
	}
	del := func(q string, ts Timestamp) *Mutation {
		m := NewMutation()
		m.DeleteOnlyVersion("g", q, ts)
		return m
	}
	cells := func(row string) []string {
		r, err := tbl.ReadRow(ctx, row)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range r["g"] {
			out = append(out, fmt.Sprintf("%s@%d=%s", it.Column, it.Timestamp, it.Value))
		}
		return out
	}
	mustApply(t, tbl, "a", set("g", "q", 1, "one"))
	mustApply(t, tbl, "a", set("g", "q", 2, "two"))
	mustApply(t, tbl, "a", set("g", "r", 2, "other"))
	if err := tbl.Apply(ctx, "a", del("q", 2)); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(cells("a")), "[g:q@1=one g:r@2=other]"; got != want {
		t.Fatalf("row a after DeleteOnlyVersion(g:q, 2) holds %s, want %s", got, want)
	}
	// A version that is not there: nothing happens.
	if err := tbl.Apply(ctx, "a", del("q", 7)); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(cells("a")), "[g:q@1=one g:r@2=other]"; got != want {
		t.Fatalf("row a after deleting a missing version holds %s, want %s", got, want)
	}

	var rows []string
	var muts []*Mutation
	for i := range 600 {
		m := NewMutation()
		m.SetOnlyVersion("g", "q", 5, []byte(fmt.Sprint(i)))
		rows, muts = append(rows, fmt.Sprintf("b%04d", i)), append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		t.Fatal(errs, err)
	}
	before := pipelinedChunks.Load()
	muts = muts[:0]
	for range rows {
		muts = append(muts, del("q", 5))
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		t.Fatal(errs, err)
	}
	if n := pipelinedChunks.Load() - before; n < 2 {
		t.Errorf("%d chunks of DeleteOnlyVersion pipelined, want them all (at least 2)", n)
	}
	for _, row := range []string{"b0000", "b0321", "b0599"} {
		if got := cells(row); len(got) != 0 {
			t.Errorf("row %s after its bulk DeleteOnlyVersion holds %v, want nothing", row, got)
		}
	}
	if n := rawCells(t, db.DB); n != 2 {
		t.Errorf("%d cells on disk, want 2 (row a's)", n)
	}
}
