package bigtable

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenWithEmptyMemLog: a process killed while Badger created a
// memtable's log leaves a file of 0 bytes (seen in cmd/index's
// TestKillResume: "while opening fid: 1 err: Create a new file"). A
// read-write Open removes it and opens the store with every write kept;
// a read-only Open, which may not change the directory, says to open it
// read-write once.
func TestOpenWithEmptyMemLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(dir, WithGCInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	tbl := createTable(t, db, "t", "f")
	mustApply(t, tbl, "r", set("f", "q", 1, "kept"))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "00001.mem")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	if _, err := Open(dir, WithReadOnly(true)); !errors.Is(err, ErrNeedsRecovery) {
		t.Fatalf("read-only Open with an empty memtable log = %v, want ErrNeedsRecovery", err)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Fatalf("a read-only Open changed the directory: %v", err)
	}

	db, err = Open(dir, WithGCInterval(0))
	if err != nil {
		t.Fatalf("Open with an empty memtable log = %v", err)
	}
	r, err := db.Open("t").ReadRow(ctx, "r")
	if err != nil || len(r["f"]) != 1 || string(r["f"][0].Value) != "kept" {
		t.Errorf("after the open: ReadRow = %v, %v; want the cell written before", r, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, WithReadOnly(true)); err != nil {
		t.Fatalf("read-only Open after the repair = %v", err)
	}
	db.Close()
}
