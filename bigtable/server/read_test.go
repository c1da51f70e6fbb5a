package server

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
)

// TestReadRowsChunks checks the chunk stream of one row: the row key once,
// family and qualifier only when they change, a value over 1 MiB split with
// value_size, and commit_row on the row's last chunk only. The Go client
// then reassembles the same row.
func TestReadRowsChunks(t *testing.T) {
	db, srv := serve(t)
	tbl := newTable(t, db)
	ctx := t.Context()
	big := make([]byte, 2*maxChunkValue+123)
	for i := range big {
		big[i] = byte(i * 7)
	}
	m := bigtable.NewMutation()
	m.Set("A", "a", 1000, []byte("a1"))
	m.Set("A", "a", 2000, []byte("a2"))
	m.Set("A", "b", 1000, big)
	m.Set("B", "a", 1000, []byte("b"))
	if err := tbl.Apply(ctx, "row", m); err != nil {
		t.Fatal(err)
	}
	resps, err := readAll(ctx, btpb.NewBigtableClient(dial(t, srv.Addr())), &btpb.ReadRowsRequest{TableName: testTable})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range resps {
		for _, ch := range r.Chunks {
			s := ""
			if ch.RowKey != nil {
				s += "key=" + string(ch.RowKey) + " "
			}
			if ch.FamilyName != nil {
				s += "fam=" + ch.FamilyName.Value + " "
			}
			if ch.Qualifier != nil {
				s += "qual=" + string(ch.Qualifier.Value) + " "
			}
			s += fmt.Sprintf("ts=%d len=%d size=%d", ch.TimestampMicros, len(ch.Value), ch.ValueSize)
			if ch.GetCommitRow() {
				s += " commit"
			}
			got = append(got, s)
		}
	}
	size := len(big)
	want := []string{
		"key=row fam=A qual=a ts=2000 len=2 size=0",
		"ts=1000 len=2 size=0",
		fmt.Sprintf("qual=b ts=1000 len=%d size=%d", maxChunkValue, size),
		fmt.Sprintf("ts=0 len=%d size=%d", maxChunkValue, size),
		"ts=0 len=123 size=0",
		"fam=B qual=a ts=1000 len=1 size=0 commit",
	}
	if !slices.Equal(got, want) {
		t.Errorf("chunks:\n got %q\nwant %q", got, want)
	}
	row, err := openClient(t, srv.Addr()).Open("t").ReadRow(ctx, "row")
	if err != nil {
		t.Fatal(err)
	}
	if items := row["A"]; len(items) != 3 || !bytes.Equal(items[2].Value, big) {
		t.Errorf("the Go client read family A as %d items, the long value intact: %v", len(items), len(items) == 3 && bytes.Equal(items[2].Value, big))
	}
}

// TestReadRowsBatches reads through batches of one row each (a fresh
// snapshot per row) with a row set of keys and overlapping ranges, a
// filter and limits, and requires what the store itself answers.
func TestReadRowsBatches(t *testing.T) {
	db, srv := serve(t, withBatchBytes(1))
	tbl := newTable(t, db)
	ctx := t.Context()
	for i := range 60 {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, fmt.Appendf(nil, "v%d", i))
		if i%3 == 0 {
			m.Set("B", "q", 1000, []byte("b"))
		}
		if err := tbl.Apply(ctx, fmt.Sprintf("r%02d", i), m); err != nil {
			t.Fatal(err)
		}
	}
	c := openClient(t, srv.Addr()).Open("t")
	sets := map[string]bigtable.RowSet{
		"all":          bigtable.InfiniteRange(""),
		"keys":         bigtable.RowList{"r07", "r03", "r55", "zz"},
		"ranges":       bigtable.RowRangeList{bigtable.NewRange("r10", "r20"), bigtable.NewClosedRange("r15", "r25"), bigtable.NewOpenRange("r40", "r43"), bigtable.InfiniteRange("r58")},
		"open-closed":  bigtable.NewOpenClosedRange("r05", "r09"),
		"prefix":       bigtable.PrefixRange("r3"),
		"reverse-open": bigtable.InfiniteReverseRange("r04"),
	}
	optsets := map[string][]bigtable.ReadOption{
		"plain":    nil,
		"limit 7":  {bigtable.LimitRows(7)},
		"family B": {bigtable.RowFilter(bigtable.FamilyFilter("B"))},
		"B, 2":     {bigtable.RowFilter(bigtable.FamilyFilter("B")), bigtable.LimitRows(2)},
	}
	for sname, rs := range sets {
		for oname, opts := range optsets {
			var want, got []string
			if err := tbl.ReadRows(ctx, rs, func(r bigtable.Row) bool { want = append(want, r.Key()); return true }, opts...); err != nil {
				t.Fatal(err)
			}
			if err := c.ReadRows(ctx, rs, func(r bigtable.Row) bool { got = append(got, r.Key()); return true }, opts...); err != nil {
				t.Fatalf("%s, %s: %v", sname, oname, err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, %s: through the server %q, the store %q", sname, oname, got, want)
			}
		}
	}
}

// TestSampleRowKeys checks the samples against the store's tablets: each
// tablet's end with the bytes up to it, the last one "" (the end of the
// table).
func TestSampleRowKeys(t *testing.T) {
	db, srv := serve(t, WithProtectedTables())
	tbl := newTable(t, db)
	ctx := t.Context()
	for i := range 100 {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, make([]byte, 100))
		if err := tbl.Apply(ctx, fmt.Sprintf("r%03d", i), m); err != nil {
			t.Fatal(err)
		}
	}
	tablets, err := db.Tablets(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	c := btpb.NewBigtableClient(dial(t, srv.Addr()))
	stream, err := c.SampleRowKeys(ctx, &btpb.SampleRowKeysRequest{TableName: testTable})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		r, err := stream.Recv()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%q@%d", r.RowKey, r.OffsetBytes))
	}
	var want []string
	var off int64
	for _, tb := range tablets {
		off += tb.Bytes
		want = append(want, fmt.Sprintf("%q@%d", tb.End, off))
	}
	if !slices.Equal(got, want) || off == 0 || got[len(got)-1][:2] != `""` {
		t.Errorf("SampleRowKeys = %q, want %q (ending with the table's end, \"\")", got, want)
	}
	if _, err := c.PingAndWarm(ctx, &btpb.PingAndWarmRequest{Name: "projects/p/instances/i"}); err != nil {
		t.Errorf("PingAndWarm: %v", err)
	}
}

// TestEmulatorHost reaches the server as any Cloud Bigtable client does,
// through BIGTABLE_EMULATOR_HOST alone.
func TestEmulatorHost(t *testing.T) {
	db, srv := serve(t)
	tbl := newTable(t, db)
	m := bigtable.NewMutation()
	m.Set("A", "cnnsi.com", 1000, []byte("CNN"))
	if err := tbl.Apply(t.Context(), "com.cnn.www/", m); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BIGTABLE_EMULATOR_HOST", srv.Addr())
	cdb, table, err := cloud.OpenURL(t.Context(), "bigtable://any-project/any-instance/t")
	if err != nil {
		t.Fatal(err)
	}
	defer cdb.Close()
	row, err := cdb.Open(table).ReadRow(t.Context(), "com.cnn.www/")
	if err != nil || len(row["A"]) != 1 || string(row["A"][0].Value) != "CNN" {
		t.Errorf("ReadRow through BIGTABLE_EMULATOR_HOST = %v, %v; want A:cnnsi.com = CNN", row, err)
	}
}

// TestReadRowsManyKeysScales reads N and 4N listed row keys (half of them
// missing) in batches of a few rows and requires every row, in order, and
// the ranges handed to the store to grow about as N, not N²: a batch must
// not re-walk every key left.
func TestReadRowsManyKeysScales(t *testing.T) {
	db, srv := serve(t, withBatchBytes(1<<10))
	tbl := newTable(t, db)
	ctx := t.Context()
	const n = 2000
	rows := make([]string, 4*n)
	muts := make([]*bigtable.Mutation, len(rows))
	for i := range rows {
		rows[i] = fmt.Sprintf("r%06d", 2*i)
		muts[i] = bigtable.NewMutation()
		muts[i].Set("A", "q", 1000, []byte("v"))
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		t.Fatalf("ApplyBulk: %v %v", errs, err)
	}
	c := openClient(t, srv.Addr()).Open("t")
	read := func(n int) int64 {
		keys := make(bigtable.RowList, 0, 2*n)
		for i := 2*n - 1; i >= 0; i-- { // the row and the missing key after it, backwards
			keys = append(keys, fmt.Sprintf("r%06d", i))
		}
		before := rangesRead.Load()
		var got []string
		if err := c.ReadRows(ctx, keys, func(r bigtable.Row) bool { got = append(got, r.Key()); return true }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, rows[:n]) {
			t.Fatalf("ReadRows of %d keys: %d rows, want %d in order", len(keys), len(got), n)
		}
		return rangesRead.Load() - before
	}
	small, large := read(n), read(4*n)
	t.Logf("ranges handed to the store: %d for %d keys, %d for %d", small, 2*n, large, 8*n)
	if large > 8*small {
		t.Errorf("4x the keys handed %.1fx the ranges to the store (%d, %d): the work grows as the square of the keys", float64(large)/float64(small), small, large)
	}
}
