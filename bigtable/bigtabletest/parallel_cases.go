package bigtabletest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/webtable/webtable/bigtable"
)

// parallelRows is enough rows for the emulator's SampleRowKeys (about one
// key in a hundred) to cut a table into several pieces.
const parallelRows = 600

func (c *env) fillParallel(t *testing.T) {
	t.Helper()
	rows := make([]string, parallelRows)
	muts := make([]*bigtable.Mutation, parallelRows)
	for i := range rows {
		rows[i] = fmt.Sprintf("p%04d", i)
		muts[i] = bigtable.NewMutation()
		muts[i].Set("A", "q", 1000, []byte(rows[i]))
		if i%3 == 0 {
			muts[i].Set("B", "q", 1000, []byte("b"))
		}
	}
	errs, err := c.tbl.ApplyBulk(c.ctx, rows, muts)
	if err != nil || errs != nil {
		t.Fatalf("ApplyBulk: %v %v", err, errs)
	}
}

// parallelKeys reads rs with ReadRowsParallel and returns the keys sorted,
// failing on a row passed twice.
func (c *env) parallelKeys(t *testing.T, rs bigtable.RowSet, opts ...bigtable.ReadOption) []string {
	t.Helper()
	var mu sync.Mutex
	out := []string{}
	err := c.tbl.ReadRowsParallel(c.ctx, rs, func(r bigtable.Row) bool {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, r.Key())
		return true
	}, opts...)
	if err != nil {
		t.Fatalf("ReadRowsParallel(%v): %v", rs, err)
	}
	slices.Sort(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			t.Fatalf("ReadRowsParallel(%v) passed row %q twice", rs, out[i])
		}
	}
	return out
}

var parallelCases = []conformanceCase{
	{"parallel/the rows of ReadRows", func(t *testing.T, c *env) {
		c.fillParallel(t)
		for _, tc := range []struct {
			name string
			rs   bigtable.RowSet
			opts []bigtable.ReadOption
		}{
			{"all", bigtable.InfiniteRange(""), nil},
			{"range", bigtable.NewRange("p0100", "p0450"), nil},
			{"open range", bigtable.NewOpenRange("p0100", "p0450"), nil},
			{"ranges", bigtable.RowRangeList{bigtable.NewRange("p0000", "p0010"), bigtable.NewClosedRange("p0300", "p0599")}, nil},
			{"list", bigtable.RowList{"p0599", "p0001", "absent", "", "p0300"}, nil},
			{"prefix", bigtable.PrefixRange("p02"), nil},
			{"filter", bigtable.InfiniteRange(""), []bigtable.ReadOption{bigtable.RowFilter(bigtable.FamilyFilter("B"))}},
			{"empty", bigtable.NewRange("q", "r"), nil},
		} {
			want := c.keys(t, tc.rs, tc.opts...)
			check(t, tc.name, c.parallelKeys(t, tc.rs, tc.opts...), want)
		}
	}},
	{"parallel/LimitRows passes at most n rows in all", func(t *testing.T, c *env) {
		c.fillParallel(t)
		all := c.keys(t, bigtable.InfiniteRange(""))
		for _, n := range []int64{0, 1, 7, 250, parallelRows, parallelRows + 1} {
			got := c.parallelKeys(t, bigtable.InfiniteRange(""), bigtable.LimitRows(n))
			if want := min(n, parallelRows); int64(len(got)) != want {
				t.Errorf("LimitRows(%d): %d rows, want %d", n, len(got), want)
			}
			for _, k := range got {
				if _, ok := slices.BinarySearch(all, k); !ok {
					t.Errorf("LimitRows(%d): row %q is not in the table", n, k)
				}
			}
		}
	}},
	{"parallel/a false from f stops the read", func(t *testing.T, c *env) {
		c.fillParallel(t)
		var mu sync.Mutex
		n := 0
		err := c.tbl.ReadRowsParallel(c.ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool {
			mu.Lock()
			defer mu.Unlock()
			n++
			return n < 50
		})
		mu.Lock()
		defer mu.Unlock()
		// NB: calls already under way when the false came may still
		// finish: one per stream at most.
		if err != nil || n < 50 || n > 50+64 {
			t.Errorf("ReadRowsParallel stopped at row 50: %v after %d rows; want nil after 50 and a few", err, n)
		}
	}},
	{"parallel/errors", func(t *testing.T, c *env) {
		// NB: the emulator checks patterns against rows, so there is one.
		c.set(t, "r", "A:q@1000=v")
		if err := c.tbl.ReadRowsParallel(c.ctx, nil, func(bigtable.Row) bool { return true }); err == nil {
			t.Error("ReadRowsParallel(nil RowSet) succeeded")
		}
		err := c.tbl.ReadRowsParallel(c.ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool { return true },
			bigtable.RowFilter(bigtable.FamilyFilter("(")))
		if !errors.Is(err, bigtable.ErrInvalidFilter) {
			t.Errorf("ReadRowsParallel with a bad filter = %v, want ErrInvalidFilter", err)
		}
	}},
}
