package bigtable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestRestartKeepsDataAndSchema(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("webtable", "anchor", "contents")
	db.mustTable("empty")
	if err := db.SetGCPolicy(ctx, "webtable", "contents", UnionPolicy(MaxVersionsPolicy(3), MaxAgePolicy(1e6*3600e6))); err != nil {
		t.Fatal(err)
	}
	m := NewMutation()
	m.Set("contents", "", 5, []byte("<html>5"))
	m.Set("contents", "", 3, []byte("<html>3"))
	m.Set("anchor", "cnnsi.com", 9, []byte("CNN"))
	mustApply(t, tbl, "com.cnn.www", m)
	mustApply(t, tbl, "com.cnn.www/", set("anchor", "x", 1, "y"))
	before := cellStrings(readAll(t, tbl, InfiniteRange("")))

	db.MustReopen()
	tbl = db.DB.Open("webtable")
	if got := cellStrings(readAll(t, tbl, InfiniteRange(""))); !slices.Equal(got, before) {
		t.Errorf("after reopen: %q, want %q", got, before)
	}
	names, _ := db.Tables(ctx)
	if !slices.Equal(names, []string{"empty", "webtable"}) {
		t.Errorf("Tables after reopen = %q", names)
	}
	fams, _ := db.Families(ctx, "webtable")
	if got := fams["contents"].String(); got != "(versions() > 3 || age() > 1000h)" {
		t.Errorf("policy after reopen = %q", got)
	}
	if got := fams["anchor"].String(); got != "" {
		t.Errorf("anchor policy after reopen = %q", got)
	}
	// A table created after the restart gets a fresh id: no cells leak.
	if err := db.DeleteTable(ctx, "webtable"); err != nil {
		t.Fatal(err)
	}
	db.MustReopen()
	tbl = db.mustTable("webtable", "anchor")
	if got := readAll(t, tbl, InfiniteRange("")); len(got) != 0 {
		t.Errorf("re-created table after restart holds %q", cellStrings(got))
	}
}

const crashEnv = "BIGTABLE_CRASH_DIR"

// TestCrashChild is the child of TestKillNine: it writes and kills itself.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("child process of TestKillNine and TestKillNineMidWrite, which set " + crashEnv)
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl := createTable(t, db, "t", "f")
	for i := range 500 {
		m := NewMutation()
		m.Set("f", "a", 1, []byte(fmt.Sprint(i)))
		m.Set("f", "b", 1, []byte(fmt.Sprint(i)))
		if err := tbl.Apply(ctx, fmt.Sprintf("row%03d", i), m); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv(crashBulkEnv) == "" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	// Bulk mode: write until killed, reporting each acknowledged batch.
	// crashDropEnv names a batch to acknowledge without writing it: the
	// fault the parent must notice.
	drop, _ := strconv.Atoi(os.Getenv(crashDropEnv))
	for b := 0; ; b++ {
		var rows []string
		var muts []*Mutation
		for i := range 100 {
			m := NewMutation()
			v := []byte(fmt.Sprint(b, i))
			m.Set("f", "a", 1, v)
			m.Set("f", "b", 1, v)
			rows = append(rows, fmt.Sprintf("bulk%05d-%03d", b, i))
			muts = append(muts, m)
		}
		if b+1 != drop {
			if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
				t.Fatal(err, errs)
			}
		}
		fmt.Printf("acked %d\n", b+1)
	}
}

const (
	crashBulkEnv = "BIGTABLE_CRASH_BULK"
	crashDropEnv = "BIGTABLE_CRASH_DROP" // fault injection: a batch acknowledged but not written
)

// TestKillNineMidWrite kills a process in the middle of ApplyBulk calls:
// every row of every acknowledged batch must survive with its value, and
// no row may be torn. The second case makes the child acknowledge a batch
// it never wrote, and checks that the test notices exactly those rows.
func TestKillNineMidWrite(t *testing.T) {
	skipShort(t, "starts a subprocess")
	for _, tc := range []struct {
		name string
		drop int // the batch the child skips, 0 for none
	}{{"every acknowledged batch survives", 0}, {"a lost batch is noticed", 7}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			acked := 0
			env := []string{crashEnv + "=" + dir, crashBulkEnv + "=1", crashDropEnv + "=" + strconv.Itoa(tc.drop)}
			runKilledChild(t, "TestCrashChild", env, func(line string) bool {
				n, err := fmt.Sscanf(line, "acked %d", &acked)
				return n == 1 && err == nil && acked >= 20
			})
			if acked < 20 {
				t.Fatalf("child acknowledged only %d batches", acked)
			}
			problems := checkBulkRows(t, dir, acked)
			if tc.drop == 0 {
				for _, p := range problems {
					t.Error(p)
				}
				return
			}
			// Each of the dropped batch's 100 rows is reported missing, and
			// nothing else.
			want := 0
			for _, p := range problems {
				if strings.HasPrefix(p, fmt.Sprintf("row \"bulk%05d-", tc.drop-1)) && strings.HasSuffix(p, "is missing") {
					want++
				} else {
					t.Errorf("unexpected problem: %s", p)
				}
			}
			if want != 100 {
				t.Errorf("the check reported %d of the 100 rows of the batch the child acknowledged without writing", want)
			}
		})
	}
}

// checkBulkRows opens the store a killed TestCrashChild wrote in bulk mode
// and lists what is wrong: a row of one of the first acked batches missing
// or holding the wrong value, a torn row, a row of a batch never begun.
func checkBulkRows(t *testing.T, dir string, acked int) []string {
	t.Helper()
	db, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after crash: %v", err)
	}
	defer db.Close()
	var problems []string
	found := map[string]string{}
	for r, err := range db.Open("t").Rows(context.Background(), PrefixRange("bulk")) {
		if err != nil {
			t.Fatal(err)
		}
		if len(r["f"]) != 2 || string(r["f"][0].Value) != string(r["f"][1].Value) {
			problems = append(problems, fmt.Sprintf("row %q torn: %q", r.Key(), cellStrings([]Row{r})))
			continue
		}
		found[r.Key()] = string(r["f"][0].Value)
	}
	// The child goes on writing until the kill lands, so batches after the
	// last ack the parent read may be there too, whole and right.
	for b := range acked {
		for i := range 100 {
			key, want := fmt.Sprintf("bulk%05d-%03d", b, i), fmt.Sprint(b, i)
			got, ok := found[key]
			delete(found, key)
			switch {
			case !ok && b < acked:
				problems = append(problems, fmt.Sprintf("row %q of acknowledged batch %d is missing", key, b+1))
			case ok && got != want:
				problems = append(problems, fmt.Sprintf("row %q = %q, want %q", key, got, want))
			}
		}
	}
	for key, got := range found {
		var b, i int
		if n, err := fmt.Sscanf(key, "bulk%05d-%03d", &b, &i); n != 2 || err != nil || b < acked {
			problems = append(problems, fmt.Sprintf("row %q belongs to no batch the child began", key))
		} else if want := fmt.Sprint(b, i); got != want {
			problems = append(problems, fmt.Sprintf("row %q = %q, want %q", key, got, want))
		}
	}
	t.Logf("%d batches of 100 rows acknowledged", acked)
	return problems
}

// TestKillNine checks that every Apply that returned survives kill -9, and
// that a read-only open of the crashed store asks for recovery.
func TestKillNine(t *testing.T) {
	skipShort(t, "starts a subprocess")
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
	}
	if _, err := Open(dir, WithReadOnly(true)); !errors.Is(err, ErrNeedsRecovery) {
		t.Errorf("read-only Open after a crash = %v, want ErrNeedsRecovery", err)
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after crash: %v", err)
	}
	defer db.Close()
	n := 0
	for r, err := range db.Open("t").Rows(context.Background(), InfiniteRange("")) {
		if err != nil {
			t.Fatal(err)
		}
		if len(r["f"]) != 2 || string(r["f"][0].Value) != string(r["f"][1].Value) {
			t.Errorf("row %q torn: %v", r.Key(), cellStrings([]Row{r}))
		}
		n++
	}
	if n != 500 {
		t.Errorf("after kill -9: %d rows, want 500", n)
	}
}

// TestCloseLeavesNoLevel0Tables: Close compacts level 0 into the levels
// below, in the process that created the store too, so that the next
// process (a query after a crawl) does not merge level 0's tables into
// every scan, and the value log's discard statistics are found (see Open).
func TestCloseLeavesNoLevel0Tables(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	for pass := range 2 {
		for i := range 100 {
			mustApply(t, tbl, fmt.Sprintf("r%03d", i), set("f", "q", Timestamp(pass+1)*1000, "v"))
		}
		if err := db.DB.Close(); err != nil {
			t.Fatal(err)
		}
		if l0, all := manifestTables(t, db.dir); l0 != 0 || all == 0 {
			t.Errorf("after Close %d: %d of %d tables in level 0, want none", pass+1, l0, all)
		}
		d, err := Open(db.dir, db.opts...)
		if err != nil {
			t.Fatal(err)
		}
		db.DB, tbl = d, d.Open("t")
	}
}

// manifestTables counts the table files that the MANIFEST of the closed
// store at dir lists in level 0, and in all.
func manifestTables(t *testing.T, dir string) (level0, all int) {
	t.Helper()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range m.Tables {
		if tm.Level == 0 {
			level0++
		}
	}
	return level0, len(m.Tables)
}
