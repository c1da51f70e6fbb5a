package bigtable

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

const (
	tabletCrashDirEnv = "BIGTABLE_TABLET_CRASH_DIR"
	tabletCrashAtEnv  = "BIGTABLE_TABLET_CRASH_AT"
)

// tabletCrashChild begins the child process of a tablet kill test: it
// returns the store's directory and an option that kills the process at
// the split or merge stage the parent named, calling also (if set) at
// every stage before. Run by itself, the child skips.
func tabletCrashChild(t *testing.T, parent string, also func(stage string)) (string, Option) {
	dir := os.Getenv(tabletCrashDirEnv)
	if dir == "" {
		t.Skip("child process of " + parent + ", which sets " + tabletCrashDirEnv)
	}
	at := os.Getenv(tabletCrashAtEnv)
	return dir, optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage == at {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			if also != nil {
				also(stage)
			}
		}
	})
}

// TestSplitCrashChild is the child of TestKillNineMidSplit: it writes into
// a table with 8 KiB tablets until it is killed, by itself at a point of
// the first split (tabletCrashAtEnv names it) or by its parent.
func TestSplitCrashChild(t *testing.T) {
	dir, hook := tabletCrashChild(t, "TestKillNineMidSplit", func(stage string) {
		if stage == "after commit" {
			fmt.Println("split") // committed: the parent counts them
		}
	})
	db, err := Open(dir, WithTabletSplitSize(8<<10), WithGCInterval(0), hook)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl := createTable(t, db, "t", "f")
	for b := 0; b < 100000; b++ {
		var rows []string
		var muts []*Mutation
		for i := range 4 {
			rows = append(rows, fmt.Sprintf("row%06d", (b*4+i)*7919%1000003))
			muts = append(muts, kiloRow(i))
		}
		if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
			t.Fatal(err, errs)
		}
		fmt.Printf("acked %d\n", b+1)
	}
	t.Fatal("not killed")
}

// TestKillNineMidSplit kills a process just before a split commits, just
// after, and at an arbitrary moment of a write stream that splits all the
// time: the store must reopen with the tablets from before a split or from
// after it, covering the table without gaps or overlaps, and counting the
// rows that are there.
func TestKillNineMidSplit(t *testing.T) {
	skipShort(t, "starts subprocesses")
	for _, tc := range []struct {
		at      string
		tablets func(n int) bool
	}{
		{"before commit", func(n int) bool { return n == 1 }},
		{"after commit", func(n int) bool { return n == 2 }},
		// Killed after at least 3 splits were reported, at any moment of
		// the writes and of the splits that follow.
		{"anywhere", func(n int) bool { return n >= 4 }},
	} {
		t.Run(strings.ReplaceAll(tc.at, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			acked, splits := 0, 0
			runKilledChild(t, "TestSplitCrashChild", []string{tabletCrashDirEnv + "=" + dir, tabletCrashAtEnv + "=" + tc.at}, func(line string) bool {
				if line == "split" {
					splits++
				}
				fmt.Sscanf(line, "acked %d", &acked)
				return tc.at == "anywhere" && acked >= 60 && splits >= 3
			})
			db, err := Open(dir, WithTabletSplitSize(8<<10), WithGCInterval(0))
			if err != nil {
				t.Fatalf("Open after crash: %v", err)
			}
			defer db.Close()
			infos := mustTablets(t, db, "t")
			if !tc.tablets(len(infos)) {
				t.Errorf("killed %s a split: %d tablets %+v", tc.at, len(infos), infos)
			}
			rows, counted := kiloRowsAfterCrash(t, db, infos)
			if counted != int64(rows) || rows < acked*4 {
				t.Errorf("%d rows read, %d counted by the tablets, %d acknowledged", rows, counted, acked*4)
			}
			t.Logf("%d batches acknowledged, %d rows, %d tablets", acked, rows, len(infos))
		})
	}
}

// kiloRowsAfterCrash reads back table "t" of 1000-byte rows after a kill:
// it fails on a torn row, and returns the rows read and the rows the
// tablets count.
func kiloRowsAfterCrash(t *testing.T, db *DB, infos []TabletInfo) (rows int, counted int64) {
	t.Helper()
	for r, err := range db.Open("t").Rows(context.Background(), InfiniteRange("")) {
		if err != nil {
			t.Fatal(err)
		}
		if len(r["f"]) != 1 || len(r["f"][0].Value) != 1000 {
			t.Errorf("row %q torn", r.Key())
		}
		rows++
	}
	for _, in := range infos {
		counted += in.Rows
	}
	return rows, counted
}
