package bigtable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

const (
	splitCrashDirEnv = "BIGTABLE_SPLIT_CRASH_DIR"
	splitCrashAtEnv  = "BIGTABLE_SPLIT_CRASH_AT"
)

// TestSplitCrashChild is the child of TestKillNineMidSplit: it writes into
// a table with 8 KiB tablets until it is killed, by itself at a point of
// the first split (splitCrashAtEnv names it) or by its parent.
func TestSplitCrashChild(t *testing.T) {
	dir := os.Getenv(splitCrashDirEnv)
	if dir == "" {
		t.Skip("run by TestKillNineMidSplit")
	}
	at := os.Getenv(splitCrashAtEnv)
	hook := optionFunc(func(o *options) {
		o.splitHook = func(stage string) {
			switch {
			case stage == at:
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			case stage == "after commit":
				fmt.Println("split") // committed: the parent counts them
			}
		}
	})
	db, err := Open(dir, WithTabletSplitSize(8<<10), WithGCInterval(0), hook)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "f"); err != nil {
		t.Fatal(err)
	}
	tbl := db.Open("t")
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
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
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
			cmd := exec.Command(os.Args[0], "-test.run=^TestSplitCrashChild$", "-test.v")
			cmd.Env = append(os.Environ(), splitCrashDirEnv+"="+dir, splitCrashAtEnv+"="+tc.at)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			acked, splits := 0, 0
			for sc.Scan() {
				if sc.Text() == "split" {
					splits++
				}
				fmt.Sscanf(sc.Text(), "acked %d", &acked)
				if tc.at == "anywhere" && acked >= 60 && splits >= 3 {
					cmd.Process.Signal(syscall.SIGKILL)
					break
				}
			}
			go io.Copy(io.Discard, out)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child did not die by SIGKILL: %v", err)
			}
			db, err := Open(dir, WithTabletSplitSize(8<<10), WithGCInterval(0))
			if err != nil {
				t.Fatalf("Open after crash: %v", err)
			}
			defer db.Close()
			infos := mustTablets(t, db, "t")
			if !tc.tablets(len(infos)) {
				t.Errorf("killed %s a split: %d tablets %+v", tc.at, len(infos), infos)
			}
			rows := 0
			for r, err := range db.Open("t").Rows(context.Background(), InfiniteRange("")) {
				if err != nil {
					t.Fatal(err)
				}
				if len(r["f"]) != 1 || len(r["f"][0].Value) != 1000 {
					t.Errorf("row %q torn", r.Key())
				}
				rows++
			}
			counted := int64(0)
			for _, in := range infos {
				counted += in.Rows
			}
			if counted != int64(rows) || rows < acked*4 {
				t.Errorf("%d rows read, %d counted by the tablets, %d acknowledged", rows, counted, acked*4)
			}
			t.Logf("%d batches acknowledged, %d rows, %d tablets", acked, rows, len(infos))
		})
	}
}
