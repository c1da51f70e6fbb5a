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
	"github.com/webtable/webtable/crawlstore"
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
		Discovered: []crawlstore.Entry{{URL: child, Depth: 1}},
		AnchorTime: ts,
		State:      crawlstore.StateDone,
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

// TestSavesWaitingShareOneBulkWrite: saves that arrive while
// maxGroupWriters groups are being written are written together in the
// next bulk call, in the order they arrived, each returning only after
// that call; and the table holds what saving the pages one by one leaves.
func TestSavesWaitingShareOneBulkWrite(t *testing.T) {
	ctx := context.Background()
	w, g := openGated(t)
	g.gate = make(chan struct{})
	n := maxGroupWriters + 6
	results := make(chan error, n)
	save := func(i int) { _, _, err := w.Save(ctx, groupPage(i)); results <- err }
	for i := range maxGroupWriters {
		go save(i)
		waitCalls(t, g, i+1) // held at the gate
	}
	for i := maxGroupWriters; i < n; i++ {
		go save(i)
		waitPending(t, w, i-maxGroupWriters+1)
	}
	select {
	case err := <-results:
		t.Fatalf("a save returned (%v) before its bulk write", err)
	default:
	}
	close(g.gate)
	for range n {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	// The writers held at the gate wrote one page each; the 6 saves that
	// waited went in at most one call per writer's turn handed on, each
	// call in arrival order.
	calls := g.callRows()
	if len(calls) < maxGroupWriters+1 || len(calls) > 2*maxGroupWriters {
		t.Fatalf("%d saves made %d bulk calls, want %d to %d", n, len(calls), maxGroupWriters+1, 2*maxGroupWriters)
	}
	var waited []int
	for c := range calls {
		got := pagesOf(calls[c])
		if c < maxGroupWriters {
			// NB: the writers held at the gate call in either order.
			if len(got) != 1 || got[0] >= maxGroupWriters {
				t.Errorf("bulk call %d wrote the rows of pages %v, want one of the first %d alone", c, got, maxGroupWriters)
			}
			continue
		}
		if !slices.IsSorted(got) {
			t.Errorf("bulk call %d wrote the rows of pages %v, not in arrival order", c, got)
		}
		waited = append(waited, got...)
	}
	slices.Sort(waited)
	var want []int
	for i := maxGroupWriters; i < n; i++ {
		want = append(want, i)
	}
	if !slices.Equal(waited, want) {
		t.Errorf("the calls after the gate wrote pages %v, want %v once each", waited, want)
	}

	one, _ := openGated(t)
	for i := range n {
		if _, _, err := one.Save(ctx, groupPage(i)); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(dumpNoFrontier(t, one), dumpNoFrontier(t, w)); diff != "" {
		t.Errorf("pages saved one by one (-) and in a group (+) differ:\n%s", diff)
	}
}

// pagesOf lists the pages whose rows a bulk call wrote, in order: a
// page's own row comes first in its rows (and again for its state; each
// page is listed once).
func pagesOf(rows []string) []int {
	var pages []int
	for _, r := range rows {
		var i int
		if _, err := fmt.Sscanf(r, "test.g/%d", &i); err == nil && i < 100 && !slices.Contains(pages, i) {
			pages = append(pages, i)
		}
	}
	return pages
}

// TestGroupWriteErrorsStayWithTheirSave: a row that fails in a group write
// fails the save it belongs to, and only that one; a save whose context
// ended before the write is left out with its context's error.
func TestGroupWriteErrorsStayWithTheirSave(t *testing.T) {
	ctx := context.Background()
	w, g := openGated(t)
	bad := errors.New("row refused")
	first := maxGroupWriters // the first page that waits
	badChild := fmt.Sprintf("test.g/%d", 100+first+1)
	g.fail = func(row string) error {
		if row == badChild { // the child the second waiting page queues
			return bad
		}
		return nil
	}
	g.gate = make(chan struct{})
	n := first + 3
	results := make([]chan error, n)
	for i := range results {
		results[i] = make(chan error, 1)
	}
	cctx, cancel := context.WithCancel(ctx)
	for i := range first {
		go func() { _, _, err := w.Save(ctx, groupPage(i)); results[i] <- err }()
		waitCalls(t, g, i+1)
	}
	for i := first; i < n; i++ {
		c := ctx
		if i == n-1 {
			c = cctx
		}
		go func() { _, _, err := w.Save(c, groupPage(i)); results[i] <- err }()
		waitPending(t, w, i-first+1)
	}
	cancel()
	close(g.gate)
	for i := range n {
		var want error
		switch i {
		case first + 1:
			want = bad
		case n - 1:
			want = context.Canceled
		}
		err := <-results[i]
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("save of page %d = %v, want %v", i, err, want)
		}
	}
	if r, err := w.Get(ctx, fmt.Sprintf("test.g/%d", first), Query{Family: FamilyFetch}); err != nil || len(r.Cells) == 0 {
		t.Errorf("page %d, in the group with the failed row, was not stored (%v)", first, err)
	}
	if r, err := w.Get(ctx, fmt.Sprintf("test.g/%d", n-1), Query{Family: FamilyFetch}); err != nil || len(r.Cells) != 0 {
		t.Errorf("page %d, whose context ended before the write, was stored: %v (%v)", n-1, r.Cells, err)
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

// TestFrontierEntriesGoWithTheNextGroup: the frontier entry of a save is
// deleted at the front of the next group's bulk call, after the call that
// wrote its page (mark included), or by Close; the entry of a save whose
// rows failed stays, so that its page is fetched again.
func TestFrontierEntriesGoWithTheNextGroup(t *testing.T) {
	ctx := context.Background()
	db, err := bigtable.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedTable{Table: db.Open(TableName)}
	w, err := New(ctx, db, g, true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pages := make([]*Fetched, 4)
	for i := range pages {
		pages[i] = groupPage(i)
		es := []crawlstore.Entry{{URL: pages[i].Page.Fetch.URL}}
		if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
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
	for i, p := range pages {
		if _, _, err := w.Save(ctx, p); (err != nil) != (i == 2) {
			t.Errorf("save of page %d = %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Each call: the entries it deletes, then the pages it writes.
	var got []string
	for _, call := range g.callRows() {
		var desc []string
		deletes := 0
		for j, r := range call {
			for i, p := range pages {
				if p.Frontier[0] == r {
					desc = append(desc, fmt.Sprintf("entry %d", i))
					if j != deletes {
						t.Errorf("the delete of entry %d comes after a page's rows in its call", i)
					}
					deletes++
				}
			}
		}
		for _, p := range pagesOf(call) {
			desc = append(desc, fmt.Sprintf("page %d", p))
		}
		got = append(got, strings.Join(desc, ", "))
	}
	want := []string{"page 0", "entry 0, page 1", "entry 1, page 2", "page 3", "entry 3"}
	if !slices.Equal(got, want) {
		t.Errorf("bulk calls = %q, want %q", got, want)
	}
}

// hungTable is a table whose writes, once hang is closed, wait until
// their context ends.
type hungTable struct {
	*bigtable.Table
	hang chan struct{}
}

func (h hungTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	select {
	case <-h.hang:
		<-ctx.Done()
		return nil, ctx.Err()
	default:
		return h.Table.ApplyBulk(ctx, rows, muts)
	}
}

// TestFlushDeletesLeavesCloseNothing: a save leaves its frontier delete
// for the next group; when the store then hangs, FlushDeletes with a
// context the caller ends returns, and Close writes nothing that could
// hang (the crawl cuts its store calls off this way after Ctrl-C).
func TestFlushDeletesLeavesCloseNothing(t *testing.T) {
	ctx := context.Background()
	db, err := bigtable.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	h := hungTable{Table: db.Open(TableName), hang: make(chan struct{})}
	w, err := New(ctx, db, h, true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := groupPage(0)
	es := []crawlstore.Entry{{URL: p.Page.Fetch.URL}}
	if _, err := w.Enqueue(ctx, es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	p.Frontier = []string{es[0].Frontier}
	if _, _, err := w.Save(ctx, p); err != nil {
		t.Fatal(err)
	}
	close(h.hang)
	cut, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := w.FlushDeletes(cut); err == nil {
		t.Fatal("FlushDeletes on a hung store = nil, want the context's error (the save's delete was waiting)")
	}
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close still writing to the hung store after FlushDeletes")
	}
}
