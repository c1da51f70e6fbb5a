package bigtable

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// TestPipelinedBulkBesideExclusiveWriters runs pipelined ApplyBulk calls
// (blind rows, many chunks) beside writers that hold a row alone (a
// conditional mutation, a read-modify-write) and a background GC that
// keeps writes out while it rewrites a value log file. A pipelined chunk holds its rows' locks until its
// commit lands, and the next chunk's rows share lock stripes with it:
// taking them again while another writer waits for one of those stripes
// alone waits for ever, as a read lock taken twice does in Go whenever a
// writer waits in between. The writers must all finish.
func TestPipelinedBulkBesideExclusiveWriters(t *testing.T) {
	ctx := context.Background()
	// NB: no Close in a cleanup: after a deadlock it would wait for ever.
	db, err := Open(t.TempDir(), WithGCInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	tbl := createTable(t, db, "t", "f", "claim", "n")
	const rows, rounds = 3000, 6
	value := bytes.Repeat([]byte("v"), 64)
	var g errgroup.Group
	g.Go(func() error {
		for round := range rounds {
			keys := make([]string, rows)
			muts := make([]*Mutation, rows)
			for i := range rows {
				keys[i] = fmt.Sprintf("row%05d", i)
				muts[i] = NewMutation()
				muts[i].Set("f", "q", Timestamp(round+1), value) // blind: no GC policy on f
			}
			if errs, err := tbl.ApplyBulk(ctx, keys, muts); err != nil || errs != nil {
				return fmt.Errorf("ApplyBulk round %d: %v %v", round, err, errs)
			}
		}
		return nil
	})
	stop := make(chan struct{})
	exclusive := func(write func(row string) error) func() error {
		return func() error {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return nil
				default:
				}
				if err := write(fmt.Sprintf("row%05d", (i*37)%rows)); err != nil {
					return err
				}
				runtime.Gosched()
			}
		}
	}
	var others errgroup.Group
	others.Go(exclusive(func(row string) error {
		m := NewCondMutation(ColumnFilter("nothing"), nil, set("claim", "", 1, "x"))
		return tbl.Apply(ctx, row, m)
	}))
	others.Go(exclusive(func(row string) error {
		m := NewReadModifyWrite()
		m.Increment("n", "c", 1)
		_, err := tbl.ApplyReadModifyWrite(ctx, row, m)
		return err
	}))

	done := make(chan error, 1)
	go func() { done <- g.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		buf := make([]byte, 1<<20)
		t.Fatalf("ApplyBulk beside exclusive writers did not finish in 2 minutes: deadlock\n%s", buf[:runtime.Stack(buf, true)])
	}
	close(stop)
	if err := others.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
