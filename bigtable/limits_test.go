package bigtable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLimits breaks each rule once, after a valid first operation, and
// checks the error and that nothing of the mutation was written.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("webtable", "anchor", "contents")
	long := strings.Repeat("k", MaxRowKeySize+1)
	for _, tc := range []struct {
		name    string
		row     string
		mut     func(m *Mutation)
		wantErr error
		wantMsg string
	}{
		{"empty row key", "", nil, ErrInvalidRowKey, "bigtable: invalid row key: 0 bytes, want 1 to 4096"},
		{"row key too long", long, nil, ErrInvalidRowKey, "4097 bytes"},
		{"unknown family", "r", func(m *Mutation) { m.Set("anchr", "q", 1, nil) }, ErrUnknownFamily, `bigtable: unknown family "anchr" in table "webtable"`},
		{"unknown family in delete", "r", func(m *Mutation) { m.DeleteCellsInFamily("nope") }, ErrUnknownFamily, `"nope" in table "webtable"`},
		{"qualifier too long", "r", func(m *Mutation) { m.Set("anchor", strings.Repeat("q", MaxQualifierSize+1), 1, nil) }, ErrInvalidQualifier, "16385 bytes"},
		{"value too large", "r", func(m *Mutation) { m.Set("contents", "", 1, make([]byte, MaxValueSize+1)) }, ErrValueTooLarge, "104857601 bytes"},
		{"negative timestamp", "r", func(m *Mutation) { m.Set("anchor", "q", -2, nil) }, ErrInvalidTimestamp, "-2"},
		{"inverted delete range", "r", func(m *Mutation) { m.DeleteTimestampRange("anchor", "q", 5, 5) }, ErrInvalidTimestamp, "[5, 5)"},
		{"negative delete range", "r", func(m *Mutation) { m.DeleteTimestampRange("anchor", "q", -1, 0) }, ErrInvalidTimestamp, "[-1, 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMutation()
			m.Set("anchor", "ok", 1, []byte("written?"))
			if tc.mut != nil {
				tc.mut(m)
			}
			err := tbl.Apply(ctx, tc.row, m)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Apply = %v, want %v containing %q", err, tc.wantErr, tc.wantMsg)
			}
			errs, err := tbl.ApplyBulk(ctx, []string{tc.row}, []*Mutation{m})
			if err != nil || len(errs) != 1 || !errors.Is(errs[0], tc.wantErr) {
				t.Errorf("ApplyBulk = %v, %v; want [%v]", errs, err, tc.wantErr)
			}
			if rows := readAll(t, tbl, InfiniteRange("")); len(rows) != 0 {
				t.Errorf("table holds %q after a failed mutation", cellStrings(rows))
			}
		})
	}
	if err := tbl.Apply(ctx, "r", NewMutation()); !errors.Is(err, ErrInvalidMutation) {
		t.Errorf("empty mutation = %v", err)
	}
	if err := tbl.Apply(ctx, "r", nil); !errors.Is(err, ErrInvalidMutation) {
		t.Errorf("nil mutation = %v", err)
	}
}

func TestLimitsAccepted(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	key := "\x00\xff" + strings.Repeat("\x00", MaxRowKeySize-2)
	qual := strings.Repeat("\x00", MaxQualifierSize)
	big := make([]byte, 8<<20)
	big[len(big)-1] = 7
	m := NewMutation()
	m.Set("f", qual, 1, big)
	m.Set("f", "", 0, []byte("zero"))
	mustApply(t, tbl, key, m)
	r, err := tbl.ReadRow(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if r.Key() != key || len(r["f"]) != 2 {
		t.Fatalf("read back %d items", len(r["f"]))
	}
	if it := r["f"][0]; it.Column != "f:" || it.Timestamp != 0 || string(it.Value) != "zero" {
		t.Errorf("item 0 = %+v", it)
	}
	if it := r["f"][1]; it.Column != "f:"+qual || len(it.Value) != len(big) || it.Value[len(big)-1] != 7 {
		t.Errorf("item 1 has %d bytes", len(it.Value))
	}
}

func TestSchema(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"create table", nil, func() error { return db.CreateTable(ctx, "webtable") }},
		{"create table again", ErrExists, func() error { return db.CreateTable(ctx, "webtable") }},
		{"create bad table name", ErrInvalidName, func() error { return db.CreateTable(ctx, "-x") }},
		{"create family", nil, func() error { return db.CreateColumnFamily(ctx, "webtable", "anchor") }},
		{"create family again", ErrExists, func() error { return db.CreateColumnFamily(ctx, "webtable", "anchor") }},
		{"create family in missing table", ErrNotFound, func() error { return db.CreateColumnFamily(ctx, "nope", "anchor") }},
		{"bad family name", ErrInvalidName, func() error { return db.CreateColumnFamily(ctx, "webtable", "a:b") }},
		{"family name with dot and dash", nil, func() error { return db.CreateColumnFamily(ctx, "webtable", "_a.b-c") }},
		{"gc policy on missing family", ErrUnknownFamily, func() error { return db.SetGCPolicy(ctx, "webtable", "nope", MaxVersionsPolicy(1)) }},
		{"gc policy", nil, func() error { return db.SetGCPolicy(ctx, "webtable", "anchor", MaxVersionsPolicy(3)) }},
		{"delete missing family", ErrUnknownFamily, func() error { return db.DeleteColumnFamily(ctx, "webtable", "nope") }},
		{"delete family", nil, func() error { return db.DeleteColumnFamily(ctx, "webtable", "_a.b-c") }},
		{"delete missing table", ErrNotFound, func() error { return db.DeleteTable(ctx, "nope") }},
	} {
		if err := tc.call(); !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	fams, err := db.Families(ctx, "webtable")
	if err != nil || len(fams) != 1 || fams["anchor"].String() != "versions() > 3" {
		t.Errorf("Families = %v, %v", fams, err)
	}
	if err := db.Open("nope").Apply(ctx, "r", set("f", "q", 1, "v")); !errors.Is(err, ErrNotFound) || err.Error() != `bigtable: no such table "nope"` {
		t.Errorf("Apply to missing table = %v", err)
	}
	if _, err := db.Open("nope").ReadRow(ctx, "r"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadRow of missing table = %v", err)
	}
}

func TestDeleteFamilyAndTableRemoveCells(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "a", "b")
	other := db.mustTable("u", "a")
	for _, r := range []string{"1", "2", "3"} {
		m := NewMutation()
		m.Set("a", "q", 1, []byte("a"))
		m.Set("b", "q", 1, []byte("b"))
		mustApply(t, tbl, r, m)
		mustApply(t, other, r, set("a", "q", 1, "u"))
	}
	if err := db.DeleteColumnFamily(ctx, "t", "b"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "b"); err != nil {
		t.Fatal(err)
	}
	if got := cellStrings(readAll(t, tbl, InfiniteRange(""), RowFilter(FamilyFilter("b")))); len(got) != 0 {
		t.Errorf("re-created family holds %q", got)
	}
	if err := db.DeleteTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "a"); err != nil {
		t.Fatal(err)
	}
	if got := cellStrings(readAll(t, tbl, InfiniteRange(""))); len(got) != 0 {
		t.Errorf("re-created table holds %q", got)
	}
	if got := cellStrings(readAll(t, other, InfiniteRange(""))); len(got) != 3 {
		t.Errorf("other table holds %q, want 3 cells", got)
	}
	names, _ := db.Tables(ctx)
	if strings.Join(names, ",") != "t,u" {
		t.Errorf("Tables = %q", names)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.mustTable("t", "f")

	want := fmt.Sprintf("bigtable: store in use by another process: %s is held by process %d", db.dir, os.Getpid())
	if _, err := Open(db.dir); !errors.Is(err, ErrInUse) || err.Error() != want {
		t.Errorf("second Open = %v, want ErrInUse reading %q", err, want)
	}
	if _, err := Open(db.dir, WithReadOnly(true)); !errors.Is(err, ErrInUse) {
		t.Errorf("read-only Open beside a writer = %v, want ErrInUse", err)
	}

	// A read-only opener records no process id, and Close removed the
	// writer's: the message says so rather than naming a stale process.
	if err := db.DB.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(db.dir, WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("bigtable: store in use by another process: %s is held by a process that did not record its id", db.dir)
	if _, err := Open(db.dir); !errors.Is(err, ErrInUse) || err.Error() != want {
		t.Errorf("Open beside a reader = %v, want ErrInUse reading %q", err, want)
	}
	ro.Close()
	if lockHolder(db.dir) != 0 {
		t.Errorf("lockHolder of a free store = %d", lockHolder(db.dir))
	}
	os.WriteFile(filepath.Join(db.dir, "LOCK"), []byte("2147483000\n"), 0o644)
	if pid := lockHolder(db.dir); pid != 0 {
		t.Errorf("lockHolder with a LOCK naming no live process = %d, want 0", pid)
	}

	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("hello"), 0o644)
	if _, err := Open(foreign); !errors.Is(err, ErrNotStore) {
		t.Errorf("Open of a directory of other files = %v, want ErrNotStore", err)
	}
	garbage := t.TempDir()
	os.WriteFile(filepath.Join(garbage, "MANIFEST"), []byte("garbage garbage garbage"), 0o644)
	if _, err := Open(garbage); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of a directory with a garbage MANIFEST = %v, want ErrCorrupt", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), WithReadOnly(true)); err == nil {
		t.Errorf("read-only Open of a missing directory succeeded")
	}

	db.MustReopen()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := db.Open("t").ReadRow(ctx, "r"); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadRow after Close = %v, want ErrClosed", err)
	}
	if err := db.CreateTable(ctx, "x"); !errors.Is(err, ErrClosed) {
		t.Errorf("CreateTable after Close = %v, want ErrClosed", err)
	}
}

// TestOpenCorruptStore damages the files of a real store holding data, the
// way a bad disk or a careless copy would, and checks that Open, read-only
// or not, says the store is damaged and where, never panics, never opens
// it as an empty store, and leaves the files for a person to rescue.
func TestOpenCorruptStore(t *testing.T) {
	// flip inverts 16 bytes at offset at(len) of the file; cut truncates it there.
	flip := func(at func(n int) int) func([]byte) []byte {
		return func(b []byte) []byte {
			for i := at(len(b)); i < at(len(b))+16 && i < len(b); i++ {
				b[i] ^= 0xff
			}
			return b
		}
	}
	cut := func(at func(n int) int) func([]byte) []byte {
		return func(b []byte) []byte { return b[:at(len(b))] }
	}
	for _, tc := range []struct {
		name   string
		file   string // glob in the store's directory
		damage func([]byte) []byte
	}{
		{"MANIFEST bytes flipped", "MANIFEST", flip(func(n int) int { return n / 2 })},
		{"MANIFEST truncated", "MANIFEST", cut(func(n int) int { return n / 2 })},
		{"table index damaged", "*.sst", flip(func(n int) int { return n - 24 })},
	} {
		for _, readOnly := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/read-only=%v", tc.name, readOnly), func(t *testing.T) {
				dir := t.TempDir()
				db, err := Open(dir, WithMemTableSize(1<<20))
				if err != nil {
					t.Fatal(err)
				}
				fillKiloRows(t, createTable(t, db, "t", "f"), 900) // more than a memtable: a table file
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				files, _ := filepath.Glob(filepath.Join(dir, tc.file))
				if len(files) == 0 {
					t.Fatalf("the store has no %s to damage", tc.file)
				}
				b, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(files[0], tc.damage(b), 0o644); err != nil {
					t.Fatal(err)
				}
				sst, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
				_, err = Open(dir, WithReadOnly(readOnly))
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), dir) {
					t.Errorf("Open = %v, want ErrCorrupt naming %s", err, dir)
				}
				if after, _ := filepath.Glob(filepath.Join(dir, "*.sst")); !slices.Equal(after, sst) {
					t.Errorf("Open of a damaged store changed its table files: %v, was %v", after, sst)
				}
			})
		}
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	mustApply(t, tbl, "r", set("f", "q", 1, "v"))
	db.Close()
	ro, err := Open(db.dir, WithReadOnly(true))
	if err != nil {
		t.Fatalf("read-only Open = %v", err)
	}
	defer ro.Close()
	r, err := ro.Open("t").ReadRow(ctx, "r")
	if err != nil || string(r["f"][0].Value) != "v" {
		t.Errorf("read-only ReadRow = %v, %v", r, err)
	}
	if err := ro.Open("t").Apply(ctx, "r", set("f", "q", 2, "w")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Apply on a read-only store = %v, want ErrReadOnly", err)
	}
	if err := ro.CreateTable(ctx, "x"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CreateTable on a read-only store = %v, want ErrReadOnly", err)
	}
	ro2, err := Open(db.dir, WithReadOnly(true))
	if err != nil {
		t.Errorf("second read-only Open = %v; readers share the store", err)
	} else {
		ro2.Close()
	}
}

func TestForeignBadgerStore(t *testing.T) {
	db := openTestDB(t)
	// Write a key outside our key spaces with a raw transaction, then drop
	// the marker: the store is now someone else's Badger database.
	if err := db.bdb.Update(func(txn *badgerTxn) error {
		if err := txn.Set([]byte("foreign"), []byte("x")); err != nil {
			return err
		}
		return txn.Delete(metaFormatKey)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(db.dir); !errors.Is(err, ErrNotStore) {
		t.Errorf("Open of a foreign Badger store = %v, want ErrNotStore", err)
	}
}
