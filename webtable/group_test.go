package webtable

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/webtable/webtable/bigtable"
)

// gatedTable is the embedded store's table (bulk writes in order) whose
// ApplyBulk records the rows of each call, fails the rows fail names, and
// waits for gate (when set) before writing.
type gatedTable struct {
	*bigtable.Table
	gate chan struct{}
	fail func(row string) error

	mu    sync.Mutex
	calls [][]string
}

func (g *gatedTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	g.mu.Lock()
	g.calls = append(g.calls, slices.Clone(rows))
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if g.fail == nil {
		return g.Table.ApplyBulk(ctx, rows, muts)
	}
	var ok []int
	errs := make([]error, len(rows))
	for i, r := range rows {
		if errs[i] = g.fail(r); errs[i] == nil {
			ok = append(ok, i)
		}
	}
	var okRows []string
	var okMuts []*bigtable.Mutation
	for _, i := range ok {
		okRows, okMuts = append(okRows, rows[i]), append(okMuts, muts[i])
	}
	if _, err := g.Table.ApplyBulk(ctx, okRows, okMuts); err != nil {
		return nil, err
	}
	return errs, nil
}

func (g *gatedTable) callRows() [][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

func openGated(t *testing.T) (*WebTable, *gatedTable) {
	t.Helper()
	db, err := bigtable.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedTable{Table: db.Open(TableName)}
	w, err := New(context.Background(), db, g, true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, g
}

// groupPage is page i of a small site: its own row, a link home and to
// page 100+i, which it queues.
func groupPage(i int) *Fetched {
	url := fmt.Sprintf("http://g.test/%d", i)
	child := fmt.Sprintf("http://g.test/%d", 100+i)
	ts := TimestampOf(t0).TruncateToMilliseconds()
	return &Fetched{
		Page:       htmlPage(url, t0, fmt.Sprintf("<p>page %d", i)),
		Anchors:    []Anchor{{URL: "http://g.test/", Text: "home"}, {URL: child, Text: "child"}},
		Discovered: []Entry{{URL: child, Depth: 1}},
		AnchorTime: ts,
		State:      StateDone,
		StateTime:  ts,
	}
}

// waitPending waits until n saves wait for the group being written.
func waitPending(t *testing.T, w *WebTable, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.group.mu.Lock()
		got := len(w.group.pending)
		w.group.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d saves wait for the group write, want %d", got, n)
		}
		runtime.Gosched()
	}
}

// TestSavesWaitingShareOneBulkWrite: saves that arrive while another is
// being written are written together in the next bulk call, in the order
// they arrived, each returning only after that call; and the table holds
// what saving the pages one by one leaves.
func TestSavesWaitingShareOneBulkWrite(t *testing.T) {
	ctx := context.Background()
	w, g := openGated(t)
	g.gate = make(chan struct{})
	results := make(chan error, 4)
	save := func(i int) { _, _, err := w.Save(ctx, groupPage(i)); results <- err }
	go save(0)
	waitCalls(t, g, 1) // page 0 is being written, held at the gate
	for i := 1; i <= 3; i++ {
		go save(i)
		waitPending(t, w, i)
	}
	select {
	case err := <-results:
		t.Fatalf("a save returned (%v) before its bulk write", err)
	default:
	}
	close(g.gate)
	for range 4 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	calls := g.callRows()
	if len(calls) != 2 {
		t.Fatalf("4 saves made %d bulk calls, want 2 (page 0, then pages 1-3 together)", len(calls))
	}
	for c, want := range [][]int{{0}, {1, 2, 3}} {
		var pages []int
		for _, r := range calls[c] {
			var i int
			if _, err := fmt.Sscanf(r, "test.g/%d", &i); err == nil && i < 100 {
				pages = append(pages, i)
			}
		}
		// NB: a page's own row comes first in its rows, and again for
		// its state; keep each page's first mention.
		pages = slices.Compact(pages)
		if !slices.Equal(pages, want) {
			t.Errorf("bulk call %d wrote the rows of pages %v, want %v in that order", c, pages, want)
		}
	}

	one, _ := openGated(t)
	for i := range 4 {
		if _, _, err := one.Save(ctx, groupPage(i)); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(dumpNoFrontier(t, one), dumpNoFrontier(t, w)); diff != "" {
		t.Errorf("pages saved one by one (-) and in a group (+) differ:\n%s", diff)
	}
}

// TestGroupWriteErrorsStayWithTheirSave: a row that fails in a group write
// fails the save it belongs to, and only that one; a save whose context
// ended before the write is left out with its context's error.
func TestGroupWriteErrorsStayWithTheirSave(t *testing.T) {
	ctx := context.Background()
	w, g := openGated(t)
	bad := errors.New("row refused")
	g.fail = func(row string) error {
		if row == "test.g/102" { // the child page 2 queues
			return bad
		}
		return nil
	}
	g.gate = make(chan struct{})
	results := make([]chan error, 4)
	for i := range results {
		results[i] = make(chan error, 1)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { _, _, err := w.Save(ctx, groupPage(0)); results[0] <- err }()
	waitCalls(t, g, 1)
	for i := 1; i <= 3; i++ {
		c := ctx
		if i == 3 {
			c = cctx
		}
		go func() { _, _, err := w.Save(c, groupPage(i)); results[i] <- err }()
		waitPending(t, w, i)
	}
	cancel()
	close(g.gate)
	for i, want := range []error{nil, nil, bad, context.Canceled} {
		err := <-results[i]
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("save of page %d = %v, want %v", i, err, want)
		}
	}
	if r, err := w.Get(ctx, "test.g/1", Query{Family: FamilyFetch}); err != nil || len(r.Cells) == 0 {
		t.Errorf("page 1, in the group with the failed row, was not stored (%v)", err)
	}
	if r, err := w.Get(ctx, "test.g/3", Query{Family: FamilyFetch}); err != nil || len(r.Cells) != 0 {
		t.Errorf("page 3, whose context ended before the write, was stored: %v (%v)", r.Cells, err)
	}
}

// waitCalls waits until g has seen n bulk calls.
func waitCalls(t *testing.T, g *gatedTable, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(g.callRows()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d bulk calls, want %d", len(g.callRows()), n)
		}
		runtime.Gosched()
	}
}

// dumpNoFrontier is dump without the frontier's rows, whose keys hold the
// moment they were queued.
func dumpNoFrontier(t *testing.T, w *WebTable) []Row {
	t.Helper()
	var out []Row
	for _, r := range dump(t, w) {
		if !strings.HasPrefix(r.Key, FrontierPrefix) {
			out = append(out, r)
		}
	}
	return out
}

// TestFrontierEntriesGoAfterTheGroup: the frontier entries of a group's
// saves are deleted in a bulk call after the one that wrote their pages
// (marks included), and the entry of a save whose rows failed stays, so
// that its page is fetched again.
func TestFrontierEntriesGoAfterTheGroup(t *testing.T) {
	ctx := context.Background()
	w, g := openGated(t)
	pages := make([]*Fetched, 3)
	for i := range pages {
		pages[i] = groupPage(i)
		es := []Entry{{URL: pages[i].Page.Fetch.URL}}
		if _, err := w.Enqueue(ctx, es); err != nil {
			t.Fatal(err)
		}
		pages[i].Frontier = []string{es[0].Frontier}
	}
	bad := errors.New("row refused")
	g.fail = func(row string) error {
		if row == "test.g/102" { // the child page 2 queues
			return bad
		}
		return nil
	}
	g.calls = nil
	g.gate = make(chan struct{})
	results := make(chan error, 3)
	go func() { _, _, err := w.Save(ctx, pages[0]); results <- err }()
	waitCalls(t, g, 1)
	for i := 1; i <= 2; i++ {
		go func() { _, _, err := w.Save(ctx, pages[i]); results <- err }()
		waitPending(t, w, i)
	}
	close(g.gate)
	failed := 0
	for range 3 {
		if err := <-results; err != nil {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d saves failed, want 1 (page 2)", failed)
	}
	// Calls: page 0, its entry; pages 1 and 2, the entry of page 1 only.
	var got []string
	for _, call := range g.callRows() {
		kind := "rows"
		if strings.HasPrefix(call[0], FrontierPrefix) {
			kind = "entries"
			for _, r := range call {
				if !strings.HasPrefix(r, FrontierPrefix) && !IsReserved(r) {
					t.Errorf("a page row %q went with the frontier deletes", r)
				}
			}
			kind += fmt.Sprint(len(slices.DeleteFunc(slices.Clone(call), func(r string) bool { return !strings.HasPrefix(r, FrontierPrefix) })))
		}
		got = append(got, kind)
	}
	if want := []string{"rows", "entries1", "rows", "entries1"}; !slices.Equal(got, want) {
		t.Errorf("bulk calls = %v, want %v", got, want)
	}
	for i, wantLeft := range []bool{false, false, true} {
		r, err := w.tbl.ReadRow(ctx, pages[i].Frontier[0])
		if err != nil {
			t.Fatal(err)
		}
		if left := len(r) > 0; left != wantLeft {
			t.Errorf("frontier entry of page %d left: %v, want %v", i, left, wantLeft)
		}
	}
}
