package webtable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/bigtable"
)

// TestMigrateReadsAsCurrent: a store written in every old form, migrated,
// holds exactly the page rows (every cell, every version) of one written in
// the current form, lists the same frontier and the same versions, and is
// in FormatNewest without the frontier marker; so is one whose frontier
// had three-cell entries and the marker.
func TestMigrateReadsAsCurrent(t *testing.T) {
	ctx := context.Background()
	cur, _ := openTemp(t)
	writeCurrent(t, cur)
	for _, marker := range []bool{false, true} {
		t.Run(fmt.Sprintf("marker=%v", marker), func(t *testing.T) {
			old, _ := openTemp(t)
			writeOld(t, old, marker)
			if v, err := old.Format(ctx); v != FormatOriginal || err != nil {
				t.Fatalf("Format of an old store = %d, %v; want %d", v, err, FormatOriginal)
			}
			rows, bad := migrateAll(t, old)
			if len(bad) != 0 {
				t.Errorf("Migrate reported rows %q as bad, want none", bad)
			}
			if want := map[bool]int{false: 2, true: 0}[marker]; rows[FormatFrontierRows] != want {
				t.Errorf("FormatFrontierRows wrote %d entries, want %d", rows[FormatFrontierRows], want)
			}
			if diff := cmp.Diff(dumpCells(t, cur, PageRange()), dumpCells(t, old, PageRange())); diff != "" {
				t.Errorf("page rows (-written now +migrated):\n%s", diff)
			}
			if diff := cmp.Diff(queuedList(t, cur), queuedList(t, old)); diff != "" {
				t.Errorf("Queued (-written now +migrated):\n%s", diff)
			}
			for _, p := range corpusFetches {
				key := mustKey(t, p.Fetch.URL)
				want, _ := cur.Versions(ctx, key)
				got, err := old.Versions(ctx, key)
				if err != nil || !cmp.Equal(want, got) {
					t.Errorf("Versions(%q) = %+v, %v; want %+v", key, got, err, want)
				}
			}
			if got := dumpCells(t, old, bigtable.PrefixRange(ReservedPrefix+"meta/")); len(got) != 1 || !strings.Contains(got[0], FormatKey) {
				t.Errorf("the meta rows after Migrate = %q, want the format version only", got)
			}
		})
	}
}

// TestMigrateResumes: a migration stopped after any of its bulk writes or
// between any two steps (one row a write), then run again, leaves the
// store exactly as one run to its end does.
func TestMigrateResumes(t *testing.T) {
	defer func(n int) { migrateBatchRows = n }(migrateBatchRows)
	migrateBatchRows = 1
	ctx := context.Background()
	ref, _ := openTemp(t)
	writeOld(t, ref, false)
	stops := 0
	migrateHook = func(FormatVersion, bool) error { stops++; return nil }
	defer func() { migrateHook = nil }()
	migrateAll(t, ref)
	want := dumpCells(t, ref, bigtable.InfiniteRange(""))
	if stops < 10 {
		t.Fatalf("the migration stops %d times, want one a row and one a step (10 or more)", stops)
	}
	errKill := errors.New("killed")
	for k := 1; k <= stops; k++ {
		w, _ := openTemp(t)
		writeOld(t, w, false)
		n := 0
		var at string
		migrateHook = func(v FormatVersion, between bool) error {
			if n++; n == k {
				at = fmt.Sprintf("step %s (after its version: %v)", v, between)
				return errKill
			}
			return nil
		}
		if _, err := w.Migrate(ctx, nil, nil); !errors.Is(err, errKill) {
			t.Fatalf("stop %d: Migrate = %v, want the kill", k, err)
		}
		migrateHook = nil
		migrateAll(t, w)
		if diff := cmp.Diff(want, dumpCells(t, w, bigtable.InfiniteRange(""))); diff != "" {
			t.Errorf("stopped at %s, then run again (-run once +resumed):\n%s", at, diff)
		}
	}
}

// TestMigrateStepsIdempotent: every step run again over a migrated store
// writes nothing that changes it.
func TestMigrateStepsIdempotent(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	writeOld(t, w, false)
	migrateAll(t, w)
	want := dumpCells(t, w, bigtable.InfiniteRange(""))
	for _, s := range formatSteps {
		m := &migration{w: w, step: s.to, bad: func(b BadEntry) { t.Errorf("step %s again: bad row %v", s.name, b) }}
		if err := s.run(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := m.flush(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, dumpCells(t, w, bigtable.InfiniteRange(""))); diff != "" {
			t.Errorf("step %s run again changed the store (-before +after):\n%s", s.name, diff)
		}
	}
}

// TestFormatTooNew: a store whose format version is newer than the
// program's is refused by writers and readers, with a message naming both
// versions, and is left as it was: rows, families and GC policies.
func TestFormatTooNew(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	writeCurrent(t, w)
	setFormat(t, w, FormatNewest+1)
	before := dumpCells(t, w, bigtable.InfiniteRange(""))
	_, schema, err := w.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, create := range []bool{true, false} {
		opts := Options{Versions: DefaultVersions + 4} // another GC policy, which a writer would set
		if !create {
			opts.Store = append(opts.Store, bigtable.WithReadOnly(true))
		}
		db, err := bigtable.Open(dir, opts.Store...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(ctx, db, db.Open(TableName), create, opts)
		var fe *FormatError
		if !errors.Is(err, ErrFormatTooNew) || !errors.As(err, &fe) || fe.Store != FormatNewest+1 || fe.Program != FormatNewest {
			t.Fatalf("New(create %v) of a store in version %d = %v, want ErrFormatTooNew naming it and %d", create, FormatNewest+1, err, FormatNewest)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("version %d", FormatNewest+1)) || !strings.Contains(msg, fmt.Sprintf("program's %d", FormatNewest)) {
			t.Errorf("the error %q does not name both versions", msg)
		}
	}
	db, err := bigtable.Open(dir, bigtable.WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	raw := &WebTable{store: db, tbl: db.Open(TableName), name: TableName}
	defer raw.Close()
	if diff := cmp.Diff(before, dumpCells(t, raw, bigtable.InfiniteRange(""))); diff != "" {
		t.Errorf("the refused store's rows changed (-before +after):\n%s", diff)
	}
	_, after, err := raw.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(schema, after); diff != "" {
		t.Errorf("the refused store's schema changed (-before +after):\n%s", diff)
	}
}

// TestReadersReadOneVersionOld: a reader opens a store one version old
// (whose last step readers cannot see) and reads it as the migrated one;
// it refuses one two versions old, saying a crawl migrates it, and writes
// nothing to it.
func TestReadersReadOneVersionOld(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	writeOld(t, w, true)
	defer func(h func(FormatVersion, bool) error) { migrateHook = h }(migrateHook)
	errStop := errors.New("stop")
	migrateHook = func(v FormatVersion, between bool) error {
		if between && v == FormatNewest-1 {
			return errStop
		}
		return nil
	}
	if _, err := w.Migrate(ctx, nil, nil); !errors.Is(err, errStop) {
		t.Fatalf("Migrate = %v, want it stopped after %s", err, FormatNewest-1)
	}
	migrateHook = nil
	w.Close()
	r := openDir(t, dir, false, Options{})
	oneOld := dumpCells(t, r, PageRange())
	oneOldQueued := queuedList(t, r)
	r.Close()

	w = openDir(t, dir, true, Options{})
	migrateAll(t, w)
	if diff := cmp.Diff(dumpCells(t, w, PageRange()), oneOld); diff != "" {
		t.Errorf("a reader of the store one version old reads (-migrated +one old):\n%s", diff)
	}
	if diff := cmp.Diff(queuedList(t, w), oneOldQueued); diff != "" {
		t.Errorf("a reader of the store one version old lists (-migrated +one old):\n%s", diff)
	}
	setFormat(t, w, FormatNewest-2)
	before := dumpCells(t, w, bigtable.InfiniteRange(""))
	w.Close()

	db, err := bigtable.Open(dir, bigtable.WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(ctx, db, db.Open(TableName), false, Options{})
	var fe *FormatError
	if !errors.Is(err, ErrFormatTooOld) || !errors.As(err, &fe) || fe.Store != FormatNewest-2 {
		t.Fatalf("a reader's New of a store in version %d = %v, want ErrFormatTooOld", FormatNewest-2, err)
	}
	if !strings.Contains(err.Error(), "crawl") {
		t.Errorf("the error %q does not say that a crawl migrates the store", err)
	}
	db, err = bigtable.Open(dir, bigtable.WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	raw := &WebTable{store: db, tbl: db.Open(TableName), name: TableName}
	defer raw.Close()
	if diff := cmp.Diff(before, dumpCells(t, raw, bigtable.InfiniteRange(""))); diff != "" {
		t.Errorf("a reader changed the store (-before +after):\n%s", diff)
	}
}

// TestEmptyTableIsNewest: a table without rows and without a version (a
// crawl killed between creating the table and writing its version) is in
// FormatNewest: readers open it, and Migrate has nothing to do.
func TestEmptyTableIsNewest(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	asOriginal(t, w)
	if v, err := w.Format(ctx); v != FormatNewest || err != nil {
		t.Errorf("Format of an empty table = %d, %v; want %d", v, err, FormatNewest)
	}
	if rows, bad := migrateAll(t, w); len(rows) != 0 || len(bad) != 0 {
		t.Errorf("Migrate of an empty table = steps %v, bad %v; want none", rows, bad)
	}
	asOriginal(t, w)
	w.Close()
	openDir(t, dir, false, Options{}).Close()
}

// TestMigratePrivateSeeds: a store of the version before
// FormatPrivateSeeds records, migrated, the dial addresses of exactly the
// private hosts of its frontier; stopped after any write and run again,
// or its step run twice, it records the same. A store whose row says it
// recorded its seeds keeps what it recorded, and PrivateSeeds never lists
// that column.
func TestMigratePrivateSeeds(t *testing.T) {
	defer func(n int) { migrateBatchRows = n }(migrateBatchRows)
	migrateBatchRows = 1
	ctx := context.Background()
	w, _ := openTemp(t)
	writeBeforePrivateSeeds(t, w, false)
	if got := privateSeedsOf(t, w); len(got) != 0 {
		t.Fatalf("PrivateSeeds before the migration = %q, want none", got)
	}
	rows, bad := migrateAll(t, w)
	if len(bad) != 0 || rows[FormatPrivateSeeds] != 1 {
		t.Errorf("Migrate: bad rows %q, %d rows written by %s; want none bad and one row", bad, rows[FormatPrivateSeeds], FormatPrivateSeeds)
	}
	if diff := cmp.Diff(privateQueuedAddrs, privateSeedsOf(t, w)); diff != "" {
		t.Errorf("PrivateSeeds after the migration (-want +got):\n%s", diff)
	}
	want := dumpCells(t, w, bigtable.InfiniteRange(""))

	m := &migration{w: w, step: FormatPrivateSeeds, bad: func(b BadEntry) { t.Errorf("bad row %v", b) }}
	if err := migratePrivateSeeds(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := m.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, dumpCells(t, w, bigtable.InfiniteRange(""))); diff != "" {
		t.Errorf("the step run again changed the store (-before +after):\n%s", diff)
	}

	// NB: the meta rows only: another store's frontier keys differ.
	meta := bigtable.PrefixRange(ReservedPrefix + "meta/")
	wantMeta := dumpCells(t, w, meta)
	errKill := errors.New("killed")
	for k := 1; k <= 2; k++ {
		w, _ := openTemp(t)
		writeBeforePrivateSeeds(t, w, false)
		n := 0
		migrateHook = func(FormatVersion, bool) error {
			if n++; n == k {
				return errKill
			}
			return nil
		}
		_, err := w.Migrate(ctx, nil, nil)
		migrateHook = nil
		if !errors.Is(err, errKill) {
			t.Fatalf("stop %d: Migrate = %v, want the kill", k, err)
		}
		migrateAll(t, w)
		if diff := cmp.Diff(wantMeta, dumpCells(t, w, meta)); diff != "" {
			t.Errorf("stopped at write %d, then run again (-run once +resumed):\n%s", k, diff)
		}
	}

	rec, _ := openTemp(t)
	writeBeforePrivateSeeds(t, rec, true)
	if rows, _ := migrateAll(t, rec); rows[FormatPrivateSeeds] != 0 {
		t.Errorf("a store that recorded its seeds: %s wrote %d rows, want none", FormatPrivateSeeds, rows[FormatPrivateSeeds])
	}
	if got := privateSeedsOf(t, rec); !slices.Equal(got, []string{"127.0.0.1:8080"}) {
		t.Errorf("PrivateSeeds of a store that recorded its seeds = %q, want the one it recorded", got)
	}
}
