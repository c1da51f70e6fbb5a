package bigtable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// deleteRows deletes rows from..to-1 of the "row%03d" rows, one Apply each.
func deleteRows(t *testing.T, tbl *Table, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		m := NewMutation()
		m.DeleteRow()
		mustApply(t, tbl, fmt.Sprintf("row%03d", i), m)
	}
}

// TestTabletsMergeAfterDeletes fills a table until it has several tablets,
// deletes most rows, and requires that the tablets merge back (neighbours
// holding together less than a quarter of the split size), that the
// counters followed the deletes before any count, and that the merged
// tablets survive a reopen.
func TestTabletsMergeAfterDeletes(t *testing.T) {
	const size = 16 << 10
	db := openTestDB(t, WithTabletSplitSize(size), WithGCInterval(0), WithReadAhead(0))
	tbl := db.mustTable("t", "f")
	fillKiloRows(t, tbl, 120)
	mustSplit(t, db.DB)
	before := mustTablets(t, db.DB, "t")
	if len(before) < 6 {
		t.Fatalf("120 KB in 16 KiB tablets: only %d tablets", len(before))
	}
	deleteRows(t, tbl, 0, 118)
	// The counters saw the deletes: without a count, they add up to about
	// what is left (two rows), not to what was written.
	ts, _ := db.schema("t")
	counter := int64(0)
	for _, tb := range ts.tablets.load() {
		counter += max(0, tb.bytes.Load())
	}
	if counter > 4<<10 {
		t.Errorf("after deleting 118 of 120 1 KB rows the tablet counters hold %d bytes", counter)
	}
	mustSplit(t, db.DB)
	after := mustTablets(t, db.DB, "t")
	if len(after) != 1 || after[0].Rows != 2 {
		t.Fatalf("after deleting all but 2 rows: %d tablets %+v, want one of 2 rows", len(after), after)
	}
	if got := len(readAll(t, tbl, InfiniteRange(""))); got != 2 {
		t.Fatalf("%d rows left, want 2", got)
	}
	db.MustReopen()
	if again := mustTablets(t, db.DB, "t"); !slices.Equal(again, after) {
		t.Fatalf("after reopen: %+v, want %+v", again, after)
	}
}

// TestTabletsMergeOnlySmallNeighbours: deleting the rows of one tablet
// merges it with a neighbour only while the two hold less than a quarter
// of the split size, so a merged tablet is never about to split again.
func TestTabletsMergeOnlySmallNeighbours(t *testing.T) {
	const size = 16 << 10
	db := openTestDB(t, WithTabletSplitSize(size), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	fillKiloRows(t, tbl, 120)
	mustSplit(t, db.DB)
	before := mustTablets(t, db.DB, "t")
	// Empty the second tablet: its neighbours hold about 15 KB each, more
	// than the 4 KiB merge level together with it, so nothing merges.
	var first, last int
	fmt.Sscanf(before[1].Start, "row%03d", &first)
	fmt.Sscanf(before[1].End, "row%03d", &last)
	deleteRows(t, tbl, first, last)
	mustSplit(t, db.DB)
	after := mustTablets(t, db.DB, "t")
	if len(after) != len(before) || after[1].Rows != 0 {
		t.Errorf("emptying one tablet between two of %d KB: %+v, want %d tablets, the second empty", before[0].Bytes>>10, after, len(before))
	}
}

// TestTabletBackgroundMerge: deletes wake the splitter, which merges
// without being asked.
func TestTabletBackgroundMerge(t *testing.T) {
	merged := make(chan string, 100)
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			if stage == "after merge" {
				trySend(merged, stage)
			}
		}
	})
	db := openTestDB(t, WithTabletSplitSize(8<<10), WithGCInterval(0), hook)
	tbl := db.mustTable("t", "f")
	fillKiloRows(t, tbl, 40)
	mustSplit(t, db.DB)
	deleteRows(t, tbl, 0, 40)
	select {
	case <-merged:
	case <-time.After(30 * time.Second):
		t.Fatal("no merge within 30s of deleting every row of several tablets")
	}
}

// TestMergeCrashChild is the child of TestKillNineMidMerge: it fills a
// table with 8 KiB tablets, prints their number, deletes rows until a
// merge kills it (tabletCrashAtEnv names the point), printing each delete
// acknowledged.
func TestMergeCrashChild(t *testing.T) {
	dir, hook := tabletCrashChild(t, "TestKillNineMidMerge", nil)
	db, err := Open(dir, WithTabletSplitSize(8<<10), WithGCInterval(0), hook)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl := createTable(t, db, "t", "f")
	fillKiloRows(t, tbl, 40)
	if err := db.splitTablets(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := db.Tablets(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	// NB: Close saves the tablets, so the parent sees them after a kill.
	if err := db.saveTablets(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("tablets %d\n", len(list))
	for i := range 40 {
		m := NewMutation()
		m.DeleteRow()
		if err := tbl.Apply(ctx, fmt.Sprintf("row%03d", i), m); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("deleted %d\n", i+1)
	}
	db.splitTablets(ctx)
	t.Fatal("not killed")
}

// TestKillNineMidMerge kills a process just before and just after a merge
// commits: the store reopens with the tablets from before the merge or
// from after it, covering the table, and counting the rows there.
func TestKillNineMidMerge(t *testing.T) {
	skipShort(t, "starts subprocesses")
	for _, tc := range []struct {
		at   string
		lost int // tablets fewer than before, after the kill
	}{
		{"before merge", 0},
		{"after merge", 1},
	} {
		t.Run(strings.ReplaceAll(tc.at, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			tablets, deleted := 0, 0
			runKilledChild(t, "TestMergeCrashChild", []string{tabletCrashDirEnv + "=" + dir, tabletCrashAtEnv + "=" + tc.at}, func(line string) bool {
				fmt.Sscanf(line, "tablets %d", &tablets)
				fmt.Sscanf(line, "deleted %d", &deleted)
				return false
			})
			if tablets < 3 {
				t.Fatalf("the child had %d tablets before deleting", tablets)
			}
			db, err := Open(dir, WithTabletSplitSize(8<<10), WithGCInterval(0))
			if err != nil {
				t.Fatalf("Open after crash: %v", err)
			}
			defer db.Close()
			infos := mustTablets(t, db, "t")
			if len(infos) != tablets-tc.lost {
				t.Errorf("killed %s: %d tablets %+v, want %d", tc.at, len(infos), infos, tablets-tc.lost)
			}
			rows, counted := kiloRowsAfterCrash(t, db, infos)
			if counted != int64(rows) || rows > 40-deleted {
				t.Errorf("%d rows read, %d counted by the tablets, %d deletes acknowledged of 40 rows", rows, counted, deleted)
			}
		})
	}
}

// TestTabletsUnderConcurrentWork splits and merges tablets while writers
// add rows, a deleter removes runs of rows, readers scan in order and in
// parallel and list the tablets, and split passes run from a goroutine as
// well as in the background: every read sees whole rows in order, and at
// the end the tablets cover the table and count exactly the rows there.
// Rows past the writers' keys are written first and deleted during the
// work, so that their tablets empty and merge whatever the interleaving;
// the writers, the deleter and the splitter go on until both a split and a
// merge have happened during the work, and the readers until those three
// are done. Run with -race, it checks the tablet list's publication too.
func TestTabletsUnderConcurrentWork(t *testing.T) {
	var splits, merges atomic.Int64
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			switch stage {
			case "after commit":
				splits.Add(1)
			case "after merge":
				merges.Add(1)
			}
		}
	})
	db := openTestDB(t, WithTabletSplitSize(8<<10), WithGCInterval(0), WithReadAhead(4), hook)
	tbl := db.mustTable("t", "f")
	ctx := context.Background()
	const keys, spare, maxRounds = 400, 80, 2000
	fillKiloRowRange(t, tbl, keys, keys+spare) // rows the writers never touch
	mustSplit(t, db.DB)
	// more reports whether a writer, the deleter or the splitter goes on:
	// a minimum of rounds, and then until both a split and a merge have
	// come. reading reports whether a reader goes on: a minimum of rounds,
	// and then until those are done.
	more := func(round, least int) bool {
		return round < least || round < maxRounds && (splits.Load() == 0 || merges.Load() == 0)
	}
	var mutators atomic.Int64
	reading := func(round, least int) bool { return round < least || mutators.Load() > 0 }
	var g errgroup.Group
	mutate := func(f func() error) {
		mutators.Add(1)
		g.Go(func() error {
			defer mutators.Add(-1)
			return f()
		})
	}
	for w := range 2 {
		mutate(func() error {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for round := 0; more(round, 60); round++ {
				var rows []string
				var muts []*Mutation
				for range 8 {
					rows = append(rows, fmt.Sprintf("row%03d", rng.IntN(keys)))
					muts = append(muts, kiloRow(0))
				}
				if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
					return fmt.Errorf("ApplyBulk: %v %v", err, errs)
				}
			}
			return nil
		})
	}
	mutate(func() error {
		del := func(i int) error {
			m := NewMutation()
			m.DeleteRow()
			return tbl.Apply(ctx, fmt.Sprintf("row%03d", i), m)
		}
		for _, i := range rand.New(rand.NewPCG(9, 8)).Perm(spare) {
			if err := del(keys + i); err != nil {
				return err
			}
		}
		rng := rand.New(rand.NewPCG(9, 9))
		for round := 0; more(round, 25); round++ {
			start := rng.IntN(keys - 30)
			for i := start; i < start+30; i++ {
				if err := del(i); err != nil {
					return err
				}
			}
		}
		return nil
	})
	mutate(func() error {
		for round := 0; more(round, 30); round++ {
			if err := db.splitTablets(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	g.Go(func() error {
		for round := 0; reading(round, 30); round++ {
			last := ""
			err := tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool {
				if r.Key() <= last || len(r["f"]) != 1 || len(r["f"][0].Value) != 1000 {
					t.Errorf("scan: row %q after %q with %d cells", r.Key(), last, len(r["f"]))
				}
				last = r.Key()
				return true
			})
			if err != nil {
				return err
			}
			if err := tbl.ReadRowsParallel(ctx, InfiniteRange(""), func(Row) bool { return true }); err != nil {
				return err
			}
		}
		return nil
	})
	g.Go(func() error {
		// NB: Tablets counts tablets as the splitter does, and the two
		// must not mix their figures (see tablet.countMu).
		for round := 0; reading(round, 200); round++ {
			if _, err := db.Tablets(ctx, "t"); err != nil {
				return err
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	mustSplit(t, db.DB)
	infos := mustTablets(t, db.DB, "t")
	counted := int64(0)
	for _, in := range infos {
		counted += in.Rows
	}
	if n := len(readAll(t, tbl, InfiniteRange(""))); int64(n) != counted {
		t.Errorf("%d rows in the table, %d counted by %d tablets", n, counted, len(infos))
	}
	if splits.Load() == 0 || merges.Load() == 0 {
		t.Errorf("%d splits and %d merges in up to %d rounds: the test did not exercise both", splits.Load(), merges.Load(), maxRounds)
	}
	t.Logf("%d splits, %d merges, %d tablets at the end", splits.Load(), merges.Load(), len(infos))
}
