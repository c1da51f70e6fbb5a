package server

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
)

// TestConcurrentClients runs 100 clients, each on its own connection,
// incrementing the same counters and writing and reading the same rows:
// no increment is lost and no reader sees a torn row.
func TestConcurrentClients(t *testing.T) {
	const clients, rounds = 100, 3
	db, srv := serve(t)
	newTable(t, db)
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tbl := openClient(t, srv.Addr()).Open("t")
			for j := range rounds {
				rmw := bigtable.NewReadModifyWrite()
				rmw.Increment("A", "n", 1)
				rmw.Increment("B", "n", 1)
				if _, err := tbl.ApplyReadModifyWrite(ctx, "counter", rmw); err != nil {
					errs <- fmt.Errorf("client %d: increment: %w", i, err)
					return
				}
				// Both cells of row "pair" are always written together.
				v := fmt.Appendf(nil, "%d-%d", i, j)
				m := bigtable.NewMutation()
				m.Set("A", "v", bigtable.ServerTime, v)
				m.Set("B", "v", bigtable.ServerTime, v)
				if err := tbl.Apply(ctx, "pair", m); err != nil {
					errs <- fmt.Errorf("client %d: apply: %w", i, err)
					return
				}
				r, err := tbl.ReadRow(ctx, "pair", bigtable.RowFilter(bigtable.LatestNFilter(1)))
				if err != nil {
					errs <- fmt.Errorf("client %d: read: %w", i, err)
					return
				}
				if a, b := string(r["A"][0].Value), string(r["B"][0].Value); a != b {
					errs <- fmt.Errorf("client %d: torn row: A=%s B=%s", i, a, b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r, err := db.Open("t").ReadRow(ctx, "counter", bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range []string{"A", "B"} {
		if got := binary.BigEndian.Uint64(r[fam][0].Value); got != clients*rounds {
			t.Errorf("counter %s = %d, want %d: increments were lost", fam, got, clients*rounds)
		}
	}
}

// TestClientGoneMidStream starts long reads, takes one response of each
// and goes away (a cancel, a closed connection): the server's handlers end,
// leaving no goroutine behind, and the server stops at once.
func TestClientGoneMidStream(t *testing.T) {
	db, srv := serve(t, withBatchBytes(4<<10))
	tbl := newTable(t, db)
	ctx := t.Context()
	rows := make([]string, 3000)
	muts := make([]*bigtable.Mutation, len(rows))
	for i := range rows {
		rows[i] = fmt.Sprintf("r%05d", i)
		muts[i] = bigtable.NewMutation()
		muts[i].Set("A", "q", 1000, make([]byte, 1000))
	}
	if _, err := tbl.ApplyBulk(ctx, rows, muts); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		conn := dial(t, srv.Addr())
		c := btpb.NewBigtableClient(conn)
		sctx, cancel := context.WithCancel(ctx)
		stream, err := c.ReadRows(sctx, &btpb.ReadRowsRequest{TableName: testTable})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			cancel()
		} else {
			conn.Close() // no cancel: the connection just goes away
			defer cancel()
		}
	}
	// Handlers notice within a batch; poll until they have, or give up.
	deadline := time.Now().Add(10 * time.Second)
	for handlersRunning() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := handlersRunning(); n > 0 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d ReadRows handlers still run after their clients went away\n%s", n, buf[:runtime.Stack(buf, true)])
	}
	start := time.Now()
	if err := srv.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v: a handler was still running", d)
	}
}

// handlersRunning counts the goroutines inside the server's ReadRows.
func handlersRunning() int {
	buf := make([]byte, 1<<22)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "(*dataServer).ReadRows")
}

// TestStalledClientPinsNoSnapshot opens a long read and receives nothing:
// the server fills its window and its two waiting batches, then waits
// without a read of the store open, so the stalled client pins no
// snapshot (no old versions) and a bounded amount of memory.
func TestStalledClientPinsNoSnapshot(t *testing.T) {
	db, srv := serve(t, withBatchBytes(4<<10))
	tbl := newTable(t, db)
	ctx := t.Context()
	rows := make([]string, 3000)
	muts := make([]*bigtable.Mutation, len(rows))
	for i := range rows {
		rows[i] = fmt.Sprintf("r%05d", i)
		muts[i] = bigtable.NewMutation()
		muts[i].Set("A", "q", 1000, make([]byte, 1000))
	}
	if _, err := tbl.ApplyBulk(ctx, rows, muts); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := btpb.NewBigtableClient(dial(t, srv.Addr())).ReadRows(sctx, &btpb.ReadRowsRequest{TableName: testTable}); err != nil {
		t.Fatal(err)
	}
	// Poll until the handler waits; then no goroutine may be in a read
	// of the store.
	stacks := func() string {
		buf := make([]byte, 1<<22)
		return string(buf[:runtime.Stack(buf, true)])
	}
	deadline := time.Now().Add(10 * time.Second)
	var s string
	for {
		s = stacks()
		waiting := strings.Contains(s, "(*dataServer).readBatches") && !strings.Contains(s, "bigtable.(*Table).read(")
		if waiting || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(s, "(*dataServer).readBatches") {
		t.Fatalf("the read ended though the client received nothing:\n%s", s)
	}
	if strings.Contains(s, "bigtable.(*Table).read(") {
		t.Fatalf("a read of the store stays open while the client is stalled:\n%s", s)
	}
}
