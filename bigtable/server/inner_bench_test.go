package server

import (
	"context"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/wire"
)

// BenchmarkServerSide reads and encodes the whole table as ReadRows
// does, without gRPC: the server's own cost per row.
func BenchmarkServerSide(b *testing.B) {
	db, _ := serve(b)
	tbl := newTable(b, db)
	const batch = 1000
	for i := 0; i < *benchRows; i += batch {
		var rows []string
		var muts []*bigtable.Mutation
		for j := i; j < min(i+batch, *benchRows); j++ {
			m := bigtable.NewMutation()
			m.Set("A", "q", 1000, benchValue)
			rows, muts = append(rows, benchKey(j)), append(muts, m)
		}
		if _, err := tbl.ApplyBulk(context.Background(), rows, muts); err != nil {
			b.Fatal(err)
		}
	}
	s := &dataServer{db: db, cfg: config{batchBytes: defaultBatchBytes}}
	b.ResetTimer()
	for range b.N {
		out := make(chan []encoded, 2)
		done := make(chan error, 1)
		go func() { done <- s.readBatches(context.Background(), tbl, []wire.Range{{}}, nil, 0, out); close(out) }()
		for batch := range out {
			for _, e := range batch {
				respPool.Put(e.buf)
			}
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
