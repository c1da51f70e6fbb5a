package bigtable

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// parallelTable is a table of 60 rows of 1 KB in tablets of about 4 KiB.
func parallelTable(t *testing.T) (*testDB, *Table) {
	t.Helper()
	db := openTestDB(t, WithTabletSplitSize(4<<10), WithGCInterval(0))
	tbl := db.mustTable("t", "f", "g")
	var rows []string
	var muts []*Mutation
	for i := range 60 {
		m := kiloRow(i)
		m.Set("g", "q", 1, []byte(fmt.Sprint(i)))
		rows = append(rows, fmt.Sprintf("r%02d", i))
		muts = append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(context.Background(), rows, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	mustSplit(t, db.DB)
	if n := len(mustTablets(t, db.DB, "t")); n < 8 {
		t.Fatalf("60 KB in %d tablets of 4 KiB", n)
	}
	return db, tbl
}

func TestReadRowsParallel(t *testing.T) {
	ctx := context.Background()
	_, tbl := parallelTable(t)
	t.Run("every row once, filtered", func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string]int{}
		var inFlight, maxInFlight atomic.Int32
		err := tbl.ReadRowsParallel(ctx, NewRange("r05", "r55"), func(r Row) bool {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				m := maxInFlight.Load()
				if n <= m || maxInFlight.CompareAndSwap(m, n) {
					break
				}
			}
			if len(r) != 1 || len(r["g"]) != 1 {
				t.Errorf("row %q = %v, want only family g", r.Key(), r)
			}
			mu.Lock()
			seen[r.Key()]++
			mu.Unlock()
			return true
		}, RowFilter(FamilyFilter("g")))
		if err != nil {
			t.Fatal(err)
		}
		for i := 5; i < 55; i++ {
			if k := fmt.Sprintf("r%02d", i); seen[k] != 1 {
				t.Errorf("row %q seen %d times", k, seen[k])
			}
		}
		if len(seen) != 50 {
			t.Errorf("read %d rows, want 50", len(seen))
		}
		t.Logf("at most %d calls of f at once", maxInFlight.Load())
	})
	t.Run("stop", func(t *testing.T) {
		var calls, after atomic.Int32
		var stopped atomic.Bool
		err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), func(r Row) bool {
			if stopped.Load() {
				after.Add(1)
			}
			if calls.Add(1) == 3 {
				stopped.Store(true)
				return false
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		n := calls.Load()
		if n < 3 || n > 3+int32(2*workersFor(60)) {
			t.Errorf("f called %d times after returning false at the third call", n)
		}
	})
	t.Run("limit", func(t *testing.T) {
		var calls atomic.Int32
		if err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), func(Row) bool { calls.Add(1); return true }, LimitRows(7)); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != 7 {
			t.Errorf("LimitRows(7): %d rows", calls.Load())
		}
		if err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), func(Row) bool { t.Error("called"); return true }, LimitRows(0)); err != nil {
			t.Errorf("LimitRows(0) = %v", err)
		}
	})
	t.Run("errors", func(t *testing.T) {
		f := func(Row) bool { return true }
		if err := tbl.ReadRowsParallel(ctx, nil, f); err == nil {
			t.Error("nil RowSet: no error")
		}
		if err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), f, LimitRows(-1)); err == nil {
			t.Error("LimitRows(-1): no error")
		}
		if err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), f, RowFilter(LatestNFilter(0))); !errors.Is(err, ErrInvalidFilter) {
			t.Errorf("bad filter = %v, want ErrInvalidFilter", err)
		}
		if err := tbl.db.Open("nope").ReadRowsParallel(ctx, InfiniteRange(""), f); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing table = %v, want ErrNotFound", err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := tbl.ReadRowsParallel(cctx, InfiniteRange(""), f); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled ctx = %v", err)
		}
		cctx, cancel = context.WithCancel(ctx)
		defer cancel()
		err := tbl.ReadRowsParallel(cctx, InfiniteRange(""), func(Row) bool { cancel(); return true },
			RowFilter(ChainFilters(PassAllFilter(), StripValueFilter())))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ctx cancelled during the read = %v", err)
		}
	})
}

func workersFor(tablets int) int { return min(tablets, runtime.GOMAXPROCS(0)) }
