package bigtable

import (
	"context"
	"testing"
)

// testDB is an open store in a temporary directory that the test can close
// and reopen.
type testDB struct {
	*DB
	t    testing.TB
	dir  string
	opts []Option
}

func openTestDB(t testing.TB, opts ...Option) *testDB {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(dir, opts...)
	if err != nil {
		t.Fatalf("Open(%q) = %v", dir, err)
	}
	tdb := &testDB{DB: db, t: t, dir: dir, opts: opts}
	t.Cleanup(func() { tdb.DB.Close() })
	return tdb
}

// MustReopen closes the store and opens it again from disk.
func (db *testDB) MustReopen() {
	db.t.Helper()
	if err := db.DB.Close(); err != nil {
		db.t.Fatalf("Close() = %v", err)
	}
	d, err := Open(db.dir, db.opts...)
	if err != nil {
		db.t.Fatalf("reopen %q: %v", db.dir, err)
	}
	db.DB = d
}

// mustTable creates a table with families and returns it.
func (db *testDB) mustTable(name string, families ...string) *Table {
	db.t.Helper()
	ctx := context.Background()
	if err := db.CreateTable(ctx, name); err != nil {
		db.t.Fatalf("CreateTable(%q) = %v", name, err)
	}
	for _, f := range families {
		if err := db.CreateColumnFamily(ctx, name, f); err != nil {
			db.t.Fatalf("CreateColumnFamily(%q, %q) = %v", name, f, err)
		}
	}
	return db.DB.Open(name)
}

// mustApply applies m to row.
func mustApply(t testing.TB, tbl *Table, row string, m *Mutation) {
	t.Helper()
	if err := tbl.Apply(context.Background(), row, m); err != nil {
		t.Fatalf("Apply(%q) = %v", row, err)
	}
}

// set returns a mutation setting one cell.
func set(family, qualifier string, ts Timestamp, value string) *Mutation {
	m := NewMutation()
	m.Set(family, qualifier, ts, []byte(value))
	return m
}

// readAll returns every row of rs as a slice.
func readAll(t testing.TB, tbl *Table, rs RowSet, opts ...ReadOption) []Row {
	t.Helper()
	var rows []Row
	if err := tbl.ReadRows(context.Background(), rs, func(r Row) bool {
		rows = append(rows, r)
		return true
	}, opts...); err != nil {
		t.Fatalf("ReadRows(%v) = %v", rs, err)
	}
	return rows
}

// cellStrings renders rows compactly: "row fam:qual@ts=value", in order.
func cellStrings(rows []Row) []string {
	var out []string
	for _, r := range rows {
		fams := make([]string, 0, len(r))
		for f := range r {
			fams = append(fams, f)
		}
		sortStrings(fams)
		for _, f := range fams {
			for _, it := range r[f] {
				out = append(out, it.Row+" "+it.Column+"@"+itoa(int64(it.Timestamp))+"="+string(it.Value))
			}
		}
	}
	return out
}
