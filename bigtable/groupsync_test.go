package bigtable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// syncWatch records, through the store's test hooks, what each group sync
// flushed and which writes returned, and lists every broken promise: a
// write that returned before a sync covered it, a sync that flushed no
// memtable log or no value log, a sync after a memtable switch that did
// not flush the log of the memtable before it.
type syncWatch struct {
	dir string

	mu       sync.Mutex
	synced   uint64   // the last sequence number a sync covered
	flushed  []string // log files flushed since the last completed sync
	rounds   int      // completed syncs
	acked    int      // writes returned
	lastMem  string   // the newest memtable log the last sync flushed
	problems []string
}

func (w *syncWatch) option() Option {
	return optionFunc(func(o *options) {
		o.syncFile = func(f *os.File) error {
			err := fdatasync(f)
			w.mu.Lock()
			w.flushed = append(w.flushed, filepath.Base(f.Name()))
			w.mu.Unlock()
			return err
		}
		o.afterSync = func(synced uint64) {
			w.mu.Lock()
			defer w.mu.Unlock()
			newestMem, vlog := "", false
			for _, name := range w.flushed {
				switch filepath.Ext(name) {
				case ".mem":
					newestMem = max(newestMem, name)
				case ".vlog":
					vlog = true
				}
			}
			if newestMem == "" || !vlog {
				w.problems = append(w.problems, fmt.Sprintf("the sync up to write %d flushed %q: want a memtable log and a value log", synced, w.flushed))
			}
			if w.lastMem != "" && newestMem > w.lastMem && !contains(w.flushed, w.lastMem) {
				if _, err := os.Stat(filepath.Join(w.dir, w.lastMem)); err == nil {
					w.problems = append(w.problems, fmt.Sprintf("the sync up to write %d flushed %q after a memtable switch, not the previous memtable's log %s", synced, w.flushed, w.lastMem))
				}
			}
			w.lastMem = max(w.lastMem, newestMem)
			w.synced, w.flushed = synced, nil
			w.rounds++
		}
		o.afterDurable = func(seq uint64) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.acked++
			if seq > w.synced {
				w.problems = append(w.problems, fmt.Sprintf("write %d returned when only writes up to %d were synced", seq, w.synced))
			}
		}
	})
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// openWatched opens a store in a new directory with synced writes, values
// of 64 bytes and more in the value log and 1 MiB memtables (so that a
// test switches memtables), watched by a syncWatch, with table "t" of
// family "f". The caller closes it.
func openWatched(t *testing.T, opts ...Option) (*DB, *syncWatch, *Table) {
	t.Helper()
	dir := t.TempDir()
	w := &syncWatch{dir: dir}
	db, err := Open(dir, append([]Option{WithSyncWrites(true), WithValueThreshold(64), WithMemTableSize(1 << 20), w.option()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "f"); err != nil {
		t.Fatal(err)
	}
	return db, w, db.Open("t")
}

func (w *syncWatch) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, p := range w.problems {
		if i == 10 {
			t.Errorf("... and %d more", len(w.problems)-i)
			break
		}
		t.Error(p)
	}
}

// TestSyncWrites checks durable group commit: with WithSyncWrites(true)
// every write returns only after a sync that flushed Badger's log files
// covered it, concurrent writers share syncs, a memtable switch does not
// leave the old memtable's log unflushed, and every write is there after a
// reopen.
func TestSyncWrites(t *testing.T) {
	db, w, tbl := openWatched(t, WithBlockCacheSize(1<<20))
	dir := w.dir
	defer func() { db.Close() }()
	ctx := context.Background()

	// Concurrent one-row writes, values in the value log.
	const writers, perWriter = 16, 20
	value := strings.Repeat("v", 100)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if err := tbl.Apply(ctx, fmt.Sprintf("w%02d-%03d", g, i), set("f", "q", 1, value)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	w.mu.Lock()
	rounds, acked := w.rounds, w.acked
	w.mu.Unlock()
	if acked < writers*perWriter {
		t.Errorf("%d writes reported durable, want at least %d", acked, writers*perWriter)
	}
	if rounds >= writers*perWriter {
		t.Errorf("%d syncs for %d concurrent writes: commits do not share syncs", rounds, writers*perWriter)
	}
	t.Logf("%d writes, %d syncs", acked, rounds)

	// Bulk writes of values kept in the LSM tree fill several 1 MiB
	// memtables, so syncs see memtable switches.
	big := strings.Repeat("b", 50) // below the value threshold: in the memtable log
	for b := range 40 {
		rows := make([]string, 500)
		muts := make([]*Mutation, 500)
		for i := range rows {
			rows[i] = fmt.Sprintf("bulk%02d-%03d", b, i)
			muts[i] = set("f", "q", 1, big)
		}
		if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
			t.Fatalf("ApplyBulk: %v %v", errs, err)
		}
	}
	mems, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	w.mu.Lock()
	last := w.lastMem
	w.mu.Unlock()
	if last <= "00001.mem" {
		t.Errorf("the newest memtable log synced is %q (on disk: %q): the test wrote too little to switch memtables", last, mems)
	}
	w.check(t)

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl = db.Open("t")
	for g := range writers {
		for i := range perWriter {
			row := fmt.Sprintf("w%02d-%03d", g, i)
			r, err := tbl.ReadRow(ctx, row)
			if err != nil || len(r["f"]) != 1 || string(r["f"][0].Value) != value {
				t.Fatalf("after reopen, row %q = %v, %v", row, r, err)
			}
		}
	}
}

// TestSyncWritesFailedSync makes one flush of a group sync fail while
// writers wait on it, the next flush succeed (as a retried fsync does on
// Linux after it dropped the dirty pages), and checks that the store
// acknowledges none of those writes and refuses every later one, with an
// error naming the failure, until it is reopened.
func TestSyncWritesFailedSync(t *testing.T) {
	dir := t.TempDir()
	var armed atomic.Bool
	blocked, release := make(chan struct{}), make(chan struct{})
	failing := optionFunc(func(o *options) {
		o.syncFile = func(f *os.File) error {
			if armed.CompareAndSwap(true, false) {
				close(blocked)
				<-release
				return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: syscall.EIO}
			}
			return fdatasync(f)
		}
	})
	db, err := Open(dir, WithSyncWrites(true), failing)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	ctx := context.Background()
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "f"); err != nil {
		t.Fatal(err)
	}
	tbl := db.Open("t")
	if err := tbl.Apply(ctx, "before", set("f", "q", 1, "durable")); err != nil {
		t.Fatal(err)
	}

	// One writer leads a sync that blocks in its flush; the others commit
	// and wait for it, then the flush fails.
	const waiters = 8
	db.group.mu.Lock()
	base := db.group.committed
	db.group.mu.Unlock()
	armed.Store(true)
	errs := make(chan error, waiters+1)
	go func() { errs <- tbl.Apply(ctx, "leader", set("f", "q", 1, "v")) }()
	<-blocked
	for i := range waiters {
		go func() { errs <- tbl.Apply(ctx, fmt.Sprintf("waiter%d", i), set("f", "q", 1, "v")) }()
	}
	for {
		// NB: no sleep: the waiters are committed once the count says so,
		// and then they can only wait on the blocked sync.
		db.group.mu.Lock()
		committed := db.group.committed
		db.group.mu.Unlock()
		if committed == base+1+waiters { // the leader and the waiters
			break
		}
		runtime.Gosched()
	}
	close(release)
	for range waiters + 1 {
		err := <-errs
		if !errors.Is(err, ErrSyncFailed) || !errors.Is(err, syscall.EIO) {
			t.Errorf("a write waiting on a failed sync returned %v, want an error wrapping ErrSyncFailed and EIO", err)
		}
	}

	// Later writes are refused before they commit, though a flush would
	// now succeed; reads go on.
	err = tbl.Apply(ctx, "after", set("f", "q", 1, "v"))
	if !errors.Is(err, ErrSyncFailed) || !strings.Contains(err.Error(), "input/output error") {
		t.Errorf("a write after a failed sync returned %v, want ErrSyncFailed naming the I/O error", err)
	}
	if errs, err := tbl.ApplyBulk(ctx, []string{"bulk1", "bulk2"}, []*Mutation{set("f", "q", 1, "v"), set("f", "q", 1, "v")}); !errors.Is(err, ErrSyncFailed) && (len(errs) == 0 || !errors.Is(errs[0], ErrSyncFailed)) {
		t.Errorf("a bulk write after a failed sync returned %v, %v, want ErrSyncFailed", errs, err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "g"); !errors.Is(err, ErrSyncFailed) {
		t.Errorf("a schema change after a failed sync returned %v, want ErrSyncFailed", err)
	}
	if r, err := tbl.ReadRow(ctx, "before"); err != nil || len(r["f"]) != 1 {
		t.Errorf("ReadRow(before) after a failed sync = %v, %v", r, err)
	}

	// Reopened, the store takes writes again and kept the acknowledged one.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, WithSyncWrites(true)); err != nil {
		t.Fatal(err)
	}
	tbl = db.Open("t")
	if err := tbl.Apply(ctx, "after", set("f", "q", 1, "v")); err != nil {
		t.Fatalf("a write after reopening: %v", err)
	}
	if r, err := tbl.ReadRow(ctx, "before"); err != nil || len(r["f"]) != 1 || string(r["f"][0].Value) != "durable" {
		t.Errorf("after reopening, ReadRow(before) = %v, %v", r, err)
	}
}
