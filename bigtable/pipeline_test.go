package bigtable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestApplyBulkPipelinedMatchesSynchronous: ApplyBulk calls of many chunks,
// most of them blind (sets into a family without a GC policy, sent
// without waiting for the commit before), some not (a GC'd family, a
// delete), rows repeated within a call and across chunks, leave on disk
// exactly what the same calls leave with every chunk committed before the
// next is built.
func TestApplyBulkPipelinedMatchesSynchronous(t *testing.T) {
	ctx := context.Background()
	open := func(opts ...Option) (*DB, *Table) {
		// NB: small memtables make small transactions: a call of a few
		// hundred rows is several chunks.
		db := openTestDB(t, append(opts, WithGCInterval(0), WithMemTableSize(1<<20), WithValueThreshold(1<<10))...)
		tbl := db.mustTable("t", "n", "g")
		if err := db.SetGCPolicy(ctx, "t", "g", MaxVersionsPolicy(1)); err != nil {
			t.Fatal(err)
		}
		return db.DB, tbl
	}
	piped, pipedTbl := open()
	ref, refTbl := open(optionFunc(func(o *options) { o.pruneAfterWrites = true })) // no pipeline
	rng := rand.New(rand.NewPCG(5, 8))
	value := strings.Repeat("v", 600)
	before := pipelinedChunks.Load()
	for call := range 12 {
		var rows []string
		var muts []*Mutation
		for i := range 200 + rng.IntN(600) {
			m := NewMutation()
			switch k := rng.IntN(100); {
			case k < 3 && call%3 == 1:
				m.Set("g", "q", Timestamp(call*1000+i), []byte(fmt.Sprint(call, i)))
			case k < 4 && call%3 == 2:
				m.DeleteCellsInColumn("n", "q")
			default:
				m.Set("n", "q", Timestamp(call*1000+i), []byte(value))
			}
			rows = append(rows, fmt.Sprintf("r%03d", rng.IntN(400)))
			muts = append(muts, m)
		}
		for _, tbl := range []*Table{pipedTbl, refTbl} {
			if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
				t.Fatalf("call %d: ApplyBulk = %v, %v", call, errs, err)
			}
		}
		got, want := rawDump(t, piped), rawDump(t, ref)
		if !slicesEqual(got, want) {
			t.Fatalf("call %d: %d cells on disk pipelined, %d committed one chunk at a time", call, len(got), len(want))
		}
	}
	if n := pipelinedChunks.Load() - before; n < 10 {
		t.Errorf("%d chunks pipelined: the test did not exercise the pipeline", n)
	}
}

// TestApplyBulkPipelinedSync: with WithSyncWrites(true), an ApplyBulk of
// many pipelined chunks returns only after a sync covered its last commit,
// and waits for one sync, not one per chunk.
func TestApplyBulkPipelinedSync(t *testing.T) {
	ctx := context.Background()
	db, w, tbl := openWatched(t)
	defer db.Close()
	const calls = 10
	before := pipelinedChunks.Load()
	w.mu.Lock()
	ackedBefore, roundsBefore := w.acked, w.rounds // the schema's writes
	w.mu.Unlock()
	for c := range calls {
		var rows []string
		var muts []*Mutation
		for i := range 2000 {
			rows = append(rows, fmt.Sprintf("c%02d-%04d", c, i))
			muts = append(muts, set("f", "q", 1, strings.Repeat("x", 40)))
		}
		if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
			t.Fatalf("ApplyBulk: %v %v", errs, err)
		}
		w.mu.Lock()
		acked := w.acked
		w.mu.Unlock()
		if acked-ackedBefore != c+1 {
			t.Fatalf("after %d calls, %d reported durable (%d chunks pipelined)", c+1, acked-ackedBefore, pipelinedChunks.Load()-before)
		}
	}
	chunks := pipelinedChunks.Load() - before
	w.mu.Lock()
	rounds := w.rounds - roundsBefore
	w.mu.Unlock()
	if chunks < 2*calls {
		t.Fatalf("%d chunks pipelined in %d calls: the test did not exercise the pipeline", chunks, calls)
	}
	if rounds > calls {
		t.Errorf("%d syncs for %d calls of %d chunks: a sync per chunk, not per call", rounds, calls, chunks)
	}
	w.check(t)
}
