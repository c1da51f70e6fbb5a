package server

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	gbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/hooks"
	"google.golang.org/api/option"
)

// TestSampleRowKeysManyTablets serves a store cut into many small tablets
// and checks that the real Cloud Bigtable Go client's SampleRowKeys gets
// the store's tablet boundaries, in order, and that a scan through the
// server still reads every row once across them.
func TestSampleRowKeysManyTablets(t *testing.T) {
	ctx := t.Context()
	db, err := bigtable.Open(t.TempDir(), bigtable.WithTabletSplitSize(16<<10), bigtable.WithGCInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl := newTable(t, db)
	const rows = 200
	var keys []string
	var muts []*bigtable.Mutation
	for i := range rows {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, make([]byte, 1000))
		keys, muts = append(keys, fmt.Sprintf("com.example.www/%03d", i)), append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(ctx, keys, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	// NB: split now rather than wait for the background splitter.
	if err := hooks.SplitTablets(ctx, db); err != nil {
		t.Fatal(err)
	}
	tablets, err := db.Tablets(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(tablets) < 4 {
		t.Fatalf("200 KB in tablets of 16 KiB made %d tablets, want several", len(tablets))
	}
	var want []string // the Go client drops the last sample, "" (the end of the table)
	for _, tb := range tablets[:len(tablets)-1] {
		want = append(want, tb.End)
	}

	srv, err := Listen(db, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(5 * time.Second)
	c, err := gbt.NewClientWithConfig(context.Background(), "p", "i",
		gbt.ClientConfig{MetricsProvider: gbt.NoopMetricsProvider{}},
		option.WithGRPCConn(dial(t, srv.Addr())), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.Open("t").SampleRowKeys(ctx)
	if err != nil {
		t.Fatalf("SampleRowKeys: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("SampleRowKeys through the Go client = %q,\nwant the store's tablet ends %q", got, want)
	}
	n := 0
	prev := ""
	err = c.Open("t").ReadRows(ctx, gbt.InfiniteRange(""), func(r gbt.Row) bool {
		if r.Key() <= prev {
			t.Errorf("row %q after %q", r.Key(), prev)
		}
		prev = r.Key()
		n++
		return true
	})
	if err != nil || n != rows {
		t.Errorf("scan over %d tablets read %d rows (err %v), want %d", len(tablets), n, err, rows)
	}
}
