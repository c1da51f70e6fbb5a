package bigtable

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/webtable/webtable/bigtable/internal/hooks"
)

// TestReadCellsMatchesReadRows reads one table through hooks.ReadCells and
// through ReadRows, with and without filters and limits, and checks that
// both hand out the same cells in the same order: ReadCells is ReadRows
// without the Row maps, nothing else.
func TestReadCellsMatchesReadRows(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithReadAhead(2)) // ReadRows reads ahead; ReadCells must agree anyway
	tbl := db.mustTable("t", "a", "b")
	if err := db.SetGCPolicy(ctx, "t", "b", MaxVersionsPolicy(1)); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		m := NewMutation()
		m.Set("a", "q1", 1, []byte(fmt.Sprintf("v%d-1", i)))
		m.Set("a", "q1", 2, []byte(fmt.Sprintf("v%d-2", i)))
		m.Set("a", "q2", 1, nil) // an empty value
		m.Set("b", "", 1, bytes.Repeat([]byte{byte(i)}, 3000))
		m.Set("b", "", 2, []byte("newest")) // hides the version above
		mustApply(t, tbl, fmt.Sprintf("row%02d", i), m)
	}
	type readCase struct {
		name   string
		rs     RowSet
		filter Filter
		limit  int64
	}
	cases := []readCase{
		{"everything", InfiniteRange(""), nil, 0},
		{"limit", InfiniteRange(""), nil, 7},
		{"range", NewRange("row10", "row20"), nil, 0},
		{"rows", RowList{"row03", "row33", "nope"}, nil, 0},
		{"latest", InfiniteRange(""), LatestNFilter(1), 0},
		{"row key", InfiniteRange(""), RowKeyFilter("row1."), 0},
		{"strip", InfiniteRange(""), StripValueFilter(), 3},
		{"interleave", InfiniteRange(""), InterleaveFilters(FamilyFilter("a"), ColumnFilter("q1")), 0},
		{"block", InfiniteRange(""), BlockAllFilter(), 0},
		{"whole row", InfiniteRange(""), CellsPerRowLimitFilter(2), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []ReadOption
			if tc.filter != nil {
				opts = append(opts, RowFilter(tc.filter))
			}
			if tc.limit > 0 {
				opts = append(opts, LimitRows(tc.limit))
			}
			var want []string
			err := tbl.ReadRows(ctx, tc.rs, func(r Row) bool {
				for _, fam := range []string{"a", "b"} {
					for _, it := range r[fam] {
						want = append(want, fmt.Sprintf("%s %s %d %q", it.Row, it.Column, it.Timestamp, it.Value))
					}
				}
				want = append(want, "--")
				return true
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = hooks.ReadCells(ctx, tbl, tc.rs, tc.filter, tc.limit, func(r *hooks.Row) bool {
				for _, c := range r.Cells {
					got = append(got, fmt.Sprintf("%s %s:%s %d %q", r.Key, c.Family, c.Qualifier, c.Timestamp, c.Value))
				}
				got = append(got, "--")
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ReadCells =\n%q\nReadRows =\n%q", got, want)
			}
		})
	}
	t.Run("stop", func(t *testing.T) {
		n := 0
		err := hooks.ReadCells(ctx, tbl, InfiniteRange(""), nil, 0, func(*hooks.Row) bool { n++; return n < 3 })
		if err != nil || n != 3 {
			t.Errorf("ReadCells stopped after %d rows (err %v), want 3 and no error", n, err)
		}
	})
	t.Run("missing table", func(t *testing.T) {
		err := hooks.ReadCells(ctx, db.Open("nope"), InfiniteRange(""), nil, 0, func(*hooks.Row) bool { return true })
		if err == nil {
			t.Error("ReadCells of a missing table: no error")
		}
	})
}

// TestReadCellsAllocations: a full scan through ReadCells allocates a
// bounded amount however many rows it reads.
func TestReadCellsAllocations(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	var rows []string
	var muts []*Mutation
	for i := range 2000 {
		m := NewMutation()
		m.Set("f", "q", 1, make([]byte, 100))
		rows, muts = append(rows, fmt.Sprintf("r%05d", i)), append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	scan := func() {
		n := 0
		if err := hooks.ReadCells(ctx, tbl, InfiniteRange(""), nil, 0, func(*hooks.Row) bool { n++; return true }); err != nil || n != 2000 {
			t.Fatalf("ReadCells read %d rows, err %v", n, err)
		}
	}
	scan() // warm the pools
	if a := testing.AllocsPerRun(5, scan); a > 2000/10 {
		t.Errorf("a scan of 2000 rows made %.0f allocations, want well under one per row", a)
	}
}
