package bigtable

import (
	"context"
	"strings"
	"sync"
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
