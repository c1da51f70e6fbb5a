package bigtable

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestSplitKeepsWritesDuringTheCount writes a row of 4,000 bytes into the
// right half of a tablet while the splitter counts it. The split cannot
// tell which half took the write, so both halves must count all of it:
// counting half in each, as the splitter once did, left the right half at
// 5 KB past the 4 KiB split size with no count due, until a later count
// (Tablets, or a reopen) found it and split it then.
func TestSplitKeepsWritesDuringTheCount(t *testing.T) {
	const size = 4 << 10
	var (
		tbl     *Table
		once    sync.Once
		hookErr error
	)
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage != "counted" {
				return
			}
			once.Do(func() {
				m := set("f", "", 1, strings.Repeat("w", 4000))
				hookErr = tbl.Apply(context.Background(), "r02", m)
			})
		}
	})
	db := openTestDB(t, WithTabletSplitSize(size), WithGCInterval(0), hook)
	tbl = db.mustTable("t", "f")
	// 3,500 + 1,000 bytes: one tablet past the split size, whose only
	// cut is before r01, so r02 lands in the right half.
	mustApply(t, tbl, "r00", set("f", "", 1, strings.Repeat("a", 3500)))
	mustApply(t, tbl, "r01", set("f", "", 1, strings.Repeat("b", 1000)))
	mustSplit(t, db.DB)
	if hookErr != nil {
		t.Fatalf("write during the count: %v", hookErr)
	}
	infos := mustTablets(t, db.DB, "t") // exact: Tablets counts them again
	if len(infos) != 3 {
		t.Errorf("after a split pass: %+v, want three tablets, one row each", infos)
	}
	for _, in := range infos {
		if in.Rows > 1 && in.Bytes >= size {
			t.Errorf("tablet [%q, %q) holds %d bytes in %d rows past the split size %d, and was not split",
				in.Start, in.End, in.Bytes, in.Rows, size)
		}
	}
}

// TestMergeWaitsForACount merges two tablets while Tablets counts the
// first, between its count and the storing of its figures. The count has
// already marked the tablet counted, so a merge that does not wait for it
// builds a tablet marked counted from the figures before the count (the
// rows deleted since still in them), and Tablets reports those for good.
func TestMergeWaitsForACount(t *testing.T) {
	var (
		db     *testDB
		armed  atomic.Bool // once the first tablet is the only one not counted
		once   sync.Once
		merged = make(chan error, 1)
	)
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage != "refresh counted" || !armed.Load() {
				return
			}
			once.Do(func() {
				ts, _ := db.schema("t")
				list := ts.tablets.load()
				merge := func() {
					ok, err := db.commitMerge(ts, list[0], list[1])
					if err == nil && !ok {
						err = errors.New("the tablets were gone")
					}
					merged <- err
				}
				// NB: if the count holds the tablet's lock, the merge
				// waits for it; if not, it runs now, inside the count.
				if !list[0].countMu.TryLock() {
					go merge()
					return
				}
				list[0].countMu.Unlock()
				merge()
			})
		}
	})
	db = openTestDB(t, WithTabletSplitSize(8<<10), WithGCInterval(0), hook)
	tbl := db.mustTable("t", "f")
	fillKiloRows(t, tbl, 40)
	mustSplit(t, db.DB)
	before := mustTablets(t, db.DB, "t")
	if len(before) < 3 || before[0].Rows < 2 {
		t.Fatalf("40 KB in 8 KiB tablets: %+v", before)
	}
	// NB: the background splitter would count the tablets again.
	db.splitMu.Lock()
	defer db.splitMu.Unlock()
	var first int
	fmt.Sscanf(before[0].End, "row%03d", &first)
	deleteRows(t, tbl, 1, first) // the first tablet keeps one row
	armed.Store(true)
	ctx := context.Background()
	if _, err := db.Tablets(ctx, "t"); err != nil { // the hook merges
		t.Fatal(err)
	}
	if err := <-merged; err != nil {
		t.Fatalf("merge: %v", err)
	}
	after, err := db.Tablets(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	counted := int64(0)
	for _, in := range after {
		counted += in.Rows
	}
	if n := len(readAll(t, tbl, InfiniteRange(""))); len(after) != len(before)-1 || int64(n) != counted {
		t.Errorf("%d rows in the table; after the merge, %d tablets count %d: %+v", n, len(after), counted, after)
	}
}
