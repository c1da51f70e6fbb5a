package bigtable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOpenAfterKillInClose: a process killed in Close, while Badger's L0
// compaction writes a table file its MANIFEST does not list yet (the empty
// memtable's log already deleted), leaves that file and Badger's LOCK. The
// store must open with every row, the unfinished table gone: it is not
// damaged. The same unlisted file without LOCK (a clean close) is damage.
func TestOpenAfterKillInClose(t *testing.T) {
	for _, killed := range []bool{true, false} {
		t.Run(fmt.Sprintf("LOCK left=%v", killed), func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, WithMemTableSize(1<<20))
			if err != nil {
				t.Fatal(err)
			}
			fillKiloRows(t, createTable(t, db, "t", "f"), 900)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			sst, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
			if len(sst) == 0 {
				t.Fatal("the store has no table file")
			}
			b, err := os.ReadFile(sst[len(sst)-1])
			if err != nil {
				t.Fatal(err)
			}
			orphan := filepath.Join(dir, "009999.sst") // a compaction's output, not yet listed
			if err := os.WriteFile(orphan, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if killed {
				if err := os.WriteFile(filepath.Join(dir, "LOCK"), []byte("999999999\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			db, err = Open(dir)
			if !killed {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("Open of a closed store with an unlisted table = %v, want ErrCorrupt", err)
				}
				if after, _ := filepath.Glob(filepath.Join(dir, "*.sst")); !slices.Contains(after, orphan) {
					t.Errorf("Open of a damaged store removed %s", orphan)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open after a kill in Close = %v, want the store", err)
			}
			defer db.Close()
			rows := 0
			err = db.Open("t").ReadRows(context.Background(), InfiniteRange(""), func(Row) bool { rows++; return true })
			if err != nil || rows != 900 {
				t.Errorf("after a kill in Close: %d rows, %v; want 900", rows, err)
			}
			if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the unfinished table %s is still there (%v)", orphan, err)
			}
		})
	}
}
