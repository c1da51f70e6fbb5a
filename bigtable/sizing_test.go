package bigtable

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReopenKilledStoreWithSmallerMemtables: a store killed with large
// memtables holding more than a smaller memtable takes reopens with the
// smaller size and keeps every row. (Without the guard Badger ends the
// process: "Arena too small".)
func TestReopenKilledStoreWithSmallerMemtables(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithMemTableSize(4<<20), WithValueLogFileSize(1<<20), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	// About 1 MiB of keys and small values: all in the memtable and its
	// log, four times what a 256 KiB memtable holds.
	const rows = 4000
	var keys []string
	var muts []*Mutation
	for i := range rows {
		keys = append(keys, fmt.Sprintf("row%06d-%0100d", i, i))
		muts = append(muts, set("f", "q", 1, fmt.Sprintf("v%0100d", i)))
		if len(keys) == 500 || i == rows-1 {
			if errs, err := tbl.ApplyBulk(ctx, keys, muts); err != nil || errs != nil {
				t.Fatal(err, errs)
			}
			keys, muts = keys[:0], muts[:0]
		}
	}
	// A copy of the open store is what a kill leaves on disk.
	killed := filepath.Join(t.TempDir(), "killed")
	copyOpenStore(t, db.dir, killed)

	small, err := Open(killed, WithMemTableSize(256<<10), WithValueLogFileSize(1<<20), WithGCInterval(0))
	if err != nil {
		t.Fatalf("Open(killed store, 256 KiB memtables) = %v", err)
	}
	defer small.Close()
	n := 0
	err = small.Open("t").ReadRows(ctx, InfiniteRange(""), func(Row) bool { n++; return true })
	if err != nil || n != rows {
		t.Errorf("the reopened store reads %d rows (err %v), want %d", n, err, rows)
	}
}

// copyOpenStore copies the files of the store open in dir to dst, but its
// lock: the state a SIGKILL would leave.
func copyOpenStore(t *testing.T, dir, dst string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	mem := 0
	for _, e := range entries {
		if e.Name() == "LOCK" || e.IsDir() {
			continue
		}
		if filepath.Ext(e.Name()) == ".mem" {
			mem++
		}
		src, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if mem == 0 {
		t.Fatalf("%s holds no memtable log: nothing to replay", dir)
	}
}

func TestSizingOf(t *testing.T) {
	d := SizingOf()
	if d.MemTableSize != 64<<20 || d.NumMemtables != 5 || d.NumCompactors != DefaultNumCompactors ||
		d.BaseTableSize != DefaultBaseTableSize || d.TableSizeMultiplier != DefaultTableSizeMultiplier {
		t.Errorf("SizingOf() = %+v, want the documented defaults", d)
	}
	if got := d.WriteMemory(); got != -1 {
		t.Errorf("default sizing WriteMemory() = %d, want -1 (tables grow with the store)", got)
	}
	s := SizingOf(WithMemTableSize(8<<20), WithNumMemtables(2), WithNumCompactors(0),
		WithBaseTableSize(2<<20), WithTableSizeMultiplier(0))
	if s.NumCompactors != 2 || s.TableSizeMultiplier != 1 {
		t.Errorf("SizingOf(compactors 0, multiplier 0) = %+v, want 2 compactors and multiplier 1", s)
	}
	// 4 memtables of 1.3 x 8 MiB, 8 kept builders of 2 x 10.4 + 8 MiB,
	// 2 x 13 builders of 4 MiB and an index of 3 MiB.
	arena := int64(8<<20) * 13 / 10
	want := 4*arena + 8*(2*arena+8<<20) + 26*(4<<20+3<<20)
	if got := s.WriteMemory(); got != want {
		t.Errorf("WriteMemory() = %d, want %d", got, want)
	}
}
