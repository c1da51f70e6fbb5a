package bigtable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
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

// createTable creates table with families in db and returns it, for the
// child processes of kill tests, which hold a bare *DB.
func createTable(t testing.TB, db *DB, table string, families ...string) *Table {
	t.Helper()
	ctx := context.Background()
	if err := db.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if err := db.CreateColumnFamily(ctx, table, f); err != nil {
			t.Fatal(err)
		}
	}
	return db.Open(table)
}

// runKilledChild runs the test named child of this binary in a subprocess
// with env added, passes each line it prints to onLine (true: kill it now),
// and requires that it ends by SIGKILL, its own or ours.
func runKilledChild(t *testing.T, child string, env []string, onLine func(line string) (kill bool)) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if onLine(sc.Text()) {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	go io.Copy(io.Discard, out)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("%s did not die by SIGKILL: %v", child, err)
	}
}

// fillKiloRows writes rows row000..row{n-1} of 1000 bytes each in one bulk.
func fillKiloRows(t testing.TB, tbl *Table, n int) {
	t.Helper()
	fillKiloRowRange(t, tbl, 0, n)
}

// fillKiloRowRange writes the kilo rows row{from} to row{to-1} in one
// ApplyBulk.
func fillKiloRowRange(t testing.TB, tbl *Table, from, to int) {
	t.Helper()
	var rows []string
	var muts []*Mutation
	for i := from; i < to; i++ {
		rows = append(rows, fmt.Sprintf("row%03d", i))
		muts = append(muts, kiloRow(i))
	}
	if errs, err := tbl.ApplyBulk(context.Background(), rows, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
}

// skipShort skips a test that is slow or heavy under go test -short, for a
// quick local run; CI and the README's test command do not pass -short, so
// these tests always run there.
func skipShort(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + why + " (CI runs it)")
	}
}

// trySend sends v on ch unless ch is full. Test hooks report with it: a
// hook that blocked would stop the store's background loop, and Close
// waits for that loop.
func trySend[T any](ch chan<- T, v T) {
	select {
	case ch <- v:
	default:
	}
}
