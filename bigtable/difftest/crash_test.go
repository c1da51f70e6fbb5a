package difftest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
)

// The crash and lock tests re-execute this test binary as a child process
// (os.Args[0] -test.run=^TestHelperProcess$) with helperEnv naming the part
// to play. The child talks to the parent through stdout only.

const (
	helperEnv = "WEBTABLE_DIFFTEST_HELPER" // "crash" or "open"
	dirEnv    = "WEBTABLE_DIFFTEST_DIR"
	startEnv  = "WEBTABLE_DIFFTEST_START"

	crashTable = "crash"
	// hotRow is overwritten by every odd-numbered mutation: all its cells
	// carry the number of the mutation that wrote them, so a torn write shows
	// up as two different numbers.
	hotRow = "hot"
)

var crashFamilies = []string{"a", "b"}

// crashRowKey is the row written by even mutation i.
func crashRowKey(i int) string { return fmt.Sprintf("r%08d", i) }

// bulkSibling is the second row of mutation i when it goes through ApplyBulk
// (bulkMutation), with the same cells as crashRowKey(i).
func bulkSibling(i int) string { return crashRowKey(i) + "b" }

// bulkMutation reports whether even mutation i is applied with ApplyBulk, to
// two rows at once; the others use Apply.
func bulkMutation(i int) bool { return i%6 == 0 }

// crashCells lists the cells mutation i writes: for an even i, 1..6 cells
// over both families in a fresh row, some values large enough for Badger's
// value log; for an odd i, the same three columns of hotRow, all set to i.
func crashCells(i int) (row string, cells []cellOut) {
	if i%2 == 1 {
		v := strconv.Itoa(i)
		return hotRow, []cellOut{{Fam: "a", Qual: "m", Value: v}, {Fam: "a", Qual: "n", Value: v}, {Fam: "b", Qual: "n", Value: v}}
	}
	n := 1 + (i/2)%6
	for k := range n {
		size := 10 + (i*7+k*13)%50
		if k == 2 {
			size = 3000 // beyond the default value threshold: lives in the value log
		}
		val := strings.Repeat(string(rune('a'+(i+k)%26)), size)
		cells = append(cells, cellOut{Fam: crashFamilies[k%2], Qual: "q" + strconv.Itoa(k), TS: 1000, Value: val})
	}
	// In the order a read returns them (see rowOut).
	sort.Slice(cells, func(a, b int) bool {
		return cells[a].Fam < cells[b].Fam || cells[a].Fam == cells[b].Fam && cells[a].Qual < cells[b].Qual
	})
	return crashRowKey(i), cells
}

func crashMutation(cells []cellOut) *bigtable.Mutation {
	m := bigtable.NewMutation()
	for _, c := range cells {
		m.Set(c.Fam, c.Qual, bigtable.Timestamp(c.TS), []byte(c.Value))
	}
	return m
}

// TestHelperProcess is not a test: it is the child of TestCrashDurability and
// TestSecondProcessGetsInUse.
func TestHelperProcess(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("only runs as a child process of the crash and lock tests")
	case "crash":
		crashChild()
	case "open":
		openChild()
	}
	os.Exit(0)
}

// crashChild applies numbered mutations for ever, printing "ack i" after
// each Apply (or ApplyBulk) returns, until the parent kills it.
func crashChild() {
	ctx := context.Background()
	start, err := strconv.Atoi(os.Getenv(startEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: bad start:", err)
		os.Exit(2)
	}
	db, err := bigtable.Open(os.Getenv(dirEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: open:", err)
		os.Exit(2)
	}
	tbl := db.Open(crashTable)
	w := bufio.NewWriter(os.Stdout)
	for i := start; ; i++ {
		row, cells := crashCells(i)
		if bulkMutation(i) {
			errs, err := tbl.ApplyBulk(ctx, []string{row, bulkSibling(i)}, []*bigtable.Mutation{crashMutation(cells), crashMutation(cells)})
			if err == nil && errs != nil {
				err = errors.Join(errs...)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "child: apply bulk %d: %v\n", i, err)
				os.Exit(2)
			}
		} else if err := tbl.Apply(ctx, row, crashMutation(cells)); err != nil {
			fmt.Fprintf(os.Stderr, "child: apply %d: %v\n", i, err)
			os.Exit(2)
		}
		fmt.Fprintf(w, "ack %d\n", i)
		w.Flush() // the ack leaves the process only after Apply returned
	}
}

// openChild tries to open the store the parent holds and reports how it went.
func openChild() {
	db, err := bigtable.Open(os.Getenv(dirEnv))
	switch {
	case err == nil:
		db.Close()
		fmt.Println("opened")
	case errors.Is(err, bigtable.ErrInUse):
		fmt.Printf("in use: %v\n", err)
	default:
		fmt.Printf("other error: %v\n", err)
	}
}

func helperCmd(t *testing.T, role, dir string, extraEnv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+role, dirEnv+"="+dir)
	cmd.Env = append(cmd.Env, extraEnv...)
	return cmd
}

func createCrashSchema(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatalf("Open(%q): %v", dir, err)
	}
	if err := db.CreateTable(ctx, crashTable); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	for _, f := range crashFamilies {
		if err := db.CreateColumnFamily(ctx, crashTable, f); err != nil {
			t.Fatalf("CreateColumnFamily(%q): %v", f, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestCrashDurability kills a writer with SIGKILL at a random acknowledged
// mutation, several times, and checks after each kill that every
// acknowledged mutation survived and that no row holds part of a mutation.
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: spawns child processes (CI runs it)")
	}
	dir := t.TempDir()
	createCrashSchema(t, dir)
	seed := *flagCrashSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("kill points from seed %d (replay: go test -run TestCrashDurability ./bigtable/difftest -args -difftest.crashseed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	next := 0 // first mutation number of the next child
	const rounds = 5
	for round := range rounds {
		killAfter := 1 + rng.Intn(300)
		acked := runCrashChild(t, dir, next, killAfter)
		last := verifyCrash(t, dir, round, next, acked)
		t.Logf("round %d: child started at %d, killed after ack %d (%d acks); store holds mutations up to %d",
			round, next, acked, acked-next+1, last)
		next = last + 1
	}
}

// runCrashChild starts a writer at mutation start, reads its acks, SIGKILLs
// it right after ack number start+killAfter-1 and returns the highest ack
// read.
func runCrashChild(t *testing.T, dir string, start, killAfter int) (lastAck int) {
	t.Helper()
	cmd := helperCmd(t, "crash", dir, startEnv+"="+strconv.Itoa(start))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lastAck = start - 1
	sc := bufio.NewScanner(out)
	acks := 0
	for sc.Scan() {
		line := sc.Text()
		n, ok := strings.CutPrefix(line, "ack ")
		if !ok {
			continue // test framework chatter
		}
		i, err := strconv.Atoi(n)
		if err != nil || i != lastAck+1 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: ack line %q after ack %d", line, lastAck)
		}
		lastAck = i
		if acks++; acks == killAfter {
			break
		}
	}
	// NB: Process.Kill is SIGKILL on Unix: no deferred function, no Close
	// and no flush runs in the child.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	err = cmd.Wait()
	if acks < killAfter {
		t.Fatalf("child stopped after %d of %d acks (%v); stderr:\n%s", acks, killAfter, err, stderr.String())
	}
	return lastAck
}

// verifyCrash reopens the store and checks every row the children wrote.
// It returns the highest mutation number found in the store.
func verifyCrash(t *testing.T, dir string, round, start, lastAck int) (last int) {
	t.Helper()
	ctx := context.Background()
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
	}
	defer db.Close()
	tbl := db.Open(crashTable)
	last = -1
	// Every even mutation's row, acknowledged or not, must be whole.
	err = tbl.ReadRows(ctx, bigtable.PrefixRange("r"), func(r bigtable.Row) bool {
		num := strings.TrimPrefix(r.Key(), "r")
		sibling := strings.HasSuffix(num, "b")
		i, err := strconv.Atoi(strings.TrimSuffix(num, "b"))
		if err == nil && sibling && !bulkMutation(i) {
			err = fmt.Errorf("mutation %d has no sibling row", i)
		}
		if err != nil {
			t.Errorf("round %d: unexpected row %q", round, r.Key())
			return true
		}
		_, want := crashCells(i)
		if got := ourRow(r); !sameCells(got.Cells, want) {
			t.Errorf("round %d: row %q (mutation %d, acked up to %d) is torn:\ngot  %s\nwant %s",
				round, r.Key(), i, lastAck, fmtCells(got.Cells), fmtCells(want))
		}
		last = max(last, i)
		return true
	})
	if err != nil {
		t.Fatalf("round %d: ReadRows: %v", round, err)
	}
	// Every acknowledged even mutation is there.
	for i := 0; i <= lastAck; i += 2 {
		r, err := tbl.ReadRow(ctx, crashRowKey(i))
		if err != nil {
			t.Fatalf("round %d: ReadRow(%q): %v", round, crashRowKey(i), err)
		}
		if len(r) == 0 {
			t.Errorf("round %d: acknowledged mutation %d (row %q) lost; acked up to %d", round, i, crashRowKey(i), lastAck)
		}
		if !bulkMutation(i) {
			continue
		}
		if r, err = tbl.ReadRow(ctx, bulkSibling(i)); err != nil {
			t.Fatalf("round %d: ReadRow(%q): %v", round, bulkSibling(i), err)
		}
		if len(r) == 0 {
			t.Errorf("round %d: acknowledged ApplyBulk %d lost its row %q; acked up to %d", round, i, bulkSibling(i), lastAck)
		}
	}
	// hotRow: all three cells from one mutation, no older than the last
	// acknowledged odd one.
	r, err := tbl.ReadRow(ctx, hotRow, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		t.Fatalf("round %d: ReadRow(%q): %v", round, hotRow, err)
	}
	lastOdd := lastAck
	if lastOdd%2 == 0 {
		lastOdd--
	}
	if lastOdd < 1 {
		return last
	}
	got := ourRow(r)
	if len(got.Cells) != 3 {
		t.Fatalf("round %d: %q has %d latest cells, want 3: %s", round, hotRow, len(got.Cells), fmtCells(got.Cells))
	}
	v, err := strconv.Atoi(got.Cells[0].Value)
	if err != nil {
		t.Fatalf("round %d: %q holds %s", round, hotRow, fmtCells(got.Cells))
	}
	if _, want := crashCells(v); !sameCells(got.Cells, want) {
		t.Errorf("round %d: %q is torn: %s, want all cells = %d", round, hotRow, fmtCells(got.Cells), v)
	}
	if v < lastOdd {
		t.Errorf("round %d: %q holds mutation %d, but %d was acknowledged", round, hotRow, v, lastOdd)
	}
	return max(last, v)
}

// sameCells compares the cells' columns and values.
func sameCells(got, want []cellOut) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Fam != w.Fam || g.Qual != w.Qual || g.Value != w.Value {
			return false
		}
	}
	return true
}

func fmtCells(cs []cellOut) string {
	var b strings.Builder
	for _, c := range cs {
		v := c.Value
		if len(v) > 12 {
			v = fmt.Sprintf("%s…(%d bytes)", v[:8], len(v))
		}
		fmt.Fprintf(&b, "%s:%s=%q ", c.Fam, c.Qual, v)
	}
	return b.String()
}

// TestSecondProcessGetsInUse opens a store and has a child process open the
// same directory: the child must get ErrInUse while the parent holds it, and
// succeed once the parent has closed it.
func TestSecondProcessGetsInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: spawns child processes (CI runs it)")
	}
	dir := t.TempDir()
	createCrashSchema(t, dir)
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	child := func() string {
		t.Helper()
		out, err := helperCmd(t, "open", dir).Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "in use:") || line == "opened" || strings.HasPrefix(line, "other error:") {
				return line
			}
		}
		t.Fatalf("child printed no verdict:\n%s", out)
		return ""
	}
	if got := child(); !strings.HasPrefix(got, "in use:") {
		t.Errorf("second process opening a held store: %s, want an error matching bigtable.ErrInUse", got)
	} else {
		t.Logf("second process: %s", got)
	}
	// The holder is unharmed.
	ctx := context.Background()
	tbl := db.Open(crashTable)
	if err := tbl.Apply(ctx, "r", crashMutation([]cellOut{{Fam: "a", Qual: "q", TS: 1000, Value: "v"}})); err != nil {
		t.Errorf("Apply in the holder after the child's attempt: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := child(); got != "opened" {
		t.Errorf("second process opening a released store: %s, want success", got)
	}
}
