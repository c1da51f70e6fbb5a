package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const testTable = "projects/p/instances/i/tables/t"

// newTable makes table t with families A and B in db.
func newTable(t testing.TB, db *bigtable.DB) *bigtable.Table {
	t.Helper()
	ctx := context.Background()
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"A", "B"} {
		if err := db.CreateColumnFamily(ctx, "t", f); err != nil {
			t.Fatal(err)
		}
	}
	return db.Open("t")
}

// readAll runs a ReadRows request and returns its responses and the
// stream's final error.
func readAll(ctx context.Context, c btpb.BigtableClient, req *btpb.ReadRowsRequest) ([]*btpb.ReadRowsResponse, error) {
	stream, err := c.ReadRows(ctx, req)
	if err != nil {
		return nil, err
	}
	var out []*btpb.ReadRowsResponse
	for {
		resp, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, resp)
	}
}

func filterOf(fs ...*btpb.RowFilter) []*btpb.RowFilter { return fs }

var familyA = &btpb.RowFilter{Filter: &btpb.RowFilter_FamilyNameRegexFilter{FamilyNameRegexFilter: "A"}}

func setCell(fam, qual string, value []byte) *btpb.Mutation {
	return &btpb.Mutation{Mutation: &btpb.Mutation_SetCell_{SetCell: &btpb.Mutation_SetCell{
		FamilyName: fam, ColumnQualifier: []byte(qual), TimestampMicros: 1000, Value: value}}}
}

// TestBadRequests checks that every request the server cannot honour
// exactly is refused with Cloud Bigtable's code, never answered
// differently.
func TestBadRequests(t *testing.T) {
	db, srv := serve(t)
	newTable(t, db)
	c := btpb.NewBigtableClient(dial(t, srv.Addr()))
	ctx := t.Context()
	read := func(req *btpb.ReadRowsRequest) error {
		if req.TableName == "" {
			req.TableName = testTable
		}
		_, err := readAll(ctx, c, req)
		return err
	}
	withFilter := func(f *btpb.RowFilter) error { return read(&btpb.ReadRowsRequest{Filter: f}) }
	tests := []struct {
		name string
		call func() error
		want codes.Code
	}{
		{"malformed table name", func() error { return read(&btpb.ReadRowsRequest{TableName: "t"}) }, codes.InvalidArgument},
		{"unknown table", func() error { return read(&btpb.ReadRowsRequest{TableName: "projects/p/instances/i/tables/nope"}) }, codes.NotFound},
		{"reversed scan", func() error { return read(&btpb.ReadRowsRequest{Reversed: true}) }, codes.Unimplemented},
		{"authorized view", func() error {
			return read(&btpb.ReadRowsRequest{TableName: "-", AuthorizedViewName: testTable + "/authorizedViews/v"})
		}, codes.Unimplemented},
		{"negative rows_limit", func() error { return read(&btpb.ReadRowsRequest{RowsLimit: -1}) }, codes.InvalidArgument},
		{"empty row key in row set", func() error {
			return read(&btpb.ReadRowsRequest{Rows: &btpb.RowSet{RowKeys: [][]byte{{}}}})
		}, codes.InvalidArgument},
		{"label filter", func() error {
			return withFilter(&btpb.RowFilter{Filter: &btpb.RowFilter_ApplyLabelTransformer{ApplyLabelTransformer: "x"}})
		}, codes.Unimplemented},
		{"sink filter", func() error { return withFilter(&btpb.RowFilter{Filter: &btpb.RowFilter_Sink{Sink: true}}) }, codes.Unimplemented},
		{"one-filter chain", func() error {
			return withFilter(&btpb.RowFilter{Filter: &btpb.RowFilter_Chain_{Chain: &btpb.RowFilter_Chain{Filters: filterOf(familyA)}}})
		}, codes.InvalidArgument},
		{"one-filter interleave", func() error {
			return withFilter(&btpb.RowFilter{Filter: &btpb.RowFilter_Interleave_{Interleave: &btpb.RowFilter_Interleave{Filters: filterOf(familyA)}}})
		}, codes.InvalidArgument},
		{"empty filter", func() error { return withFilter(&btpb.RowFilter{}) }, codes.InvalidArgument},
		{"bad regexp", func() error {
			return withFilter(&btpb.RowFilter{Filter: &btpb.RowFilter_ValueRegexFilter{ValueRegexFilter: []byte("(")}})
		}, codes.InvalidArgument},
		{"row sample of 1", func() error {
			return withFilter(&btpb.RowFilter{Filter: &btpb.RowFilter_RowSampleFilter{RowSampleFilter: 1}})
		}, codes.InvalidArgument},
		{"mutation without row key", func() error {
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, Mutations: []*btpb.Mutation{setCell("A", "q", nil)}})
			return err
		}, codes.InvalidArgument},
		{"mutation without operations", func() error {
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r")})
			return err
		}, codes.InvalidArgument},
		{"empty operation", func() error {
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r"), Mutations: []*btpb.Mutation{{}}})
			return err
		}, codes.InvalidArgument},
		{"aggregate cell", func() error {
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r"), Mutations: []*btpb.Mutation{
				{Mutation: &btpb.Mutation_AddToCell_{AddToCell: &btpb.Mutation_AddToCell{FamilyName: "A"}}}}})
			return err
		}, codes.Unimplemented},
		{"unknown family", func() error {
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r"), Mutations: []*btpb.Mutation{setCell("Z", "q", nil)}})
			return err
		}, codes.NotFound},
		{"bad timestamp", func() error {
			m := setCell("A", "q", nil)
			m.GetSetCell().TimestampMicros = -5
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r"), Mutations: []*btpb.Mutation{m}})
			return err
		}, codes.InvalidArgument},
		{"increment of a non-integer", func() error {
			if _, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("n"), Mutations: []*btpb.Mutation{setCell("A", "q", []byte("abc"))}}); err != nil {
				return err
			}
			_, err := c.ReadModifyWriteRow(ctx, &btpb.ReadModifyWriteRowRequest{TableName: testTable, RowKey: []byte("n"), Rules: []*btpb.ReadModifyWriteRule{
				{FamilyName: "A", ColumnQualifier: []byte("q"), Rule: &btpb.ReadModifyWriteRule_IncrementAmount{IncrementAmount: 1}}}})
			return err
		}, codes.InvalidArgument},
		{"no read-modify-write rules", func() error {
			_, err := c.ReadModifyWriteRow(ctx, &btpb.ReadModifyWriteRowRequest{TableName: testTable, RowKey: []byte("r")})
			return err
		}, codes.InvalidArgument},
		{"MutateRows without entries", func() error {
			s, err := c.MutateRows(ctx, &btpb.MutateRowsRequest{TableName: testTable})
			if err != nil {
				return err
			}
			_, err = s.Recv()
			return err
		}, codes.InvalidArgument},
		{"request over 256 MiB", func() error {
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("big"),
				Mutations: []*btpb.Mutation{setCell("A", "q", bytes.Repeat([]byte{'x'}, MaxRequestSize+1))}})
			return err
		}, codes.ResourceExhausted},
		{"deadline passed", func() error {
			ctx, cancel := context.WithTimeout(ctx, -time.Second)
			defer cancel()
			_, err := c.MutateRow(ctx, &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r"), Mutations: []*btpb.Mutation{setCell("A", "q", nil)}})
			return err
		}, codes.DeadlineExceeded},
		{"PingAndWarm of a bad instance name", func() error {
			_, err := c.PingAndWarm(ctx, &btpb.PingAndWarmRequest{Name: "projects/p"})
			return err
		}, codes.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := status.Code(tc.call()); got != tc.want {
				t.Errorf("code = %v, want %v", got, tc.want)
			}
		})
	}
	// Nothing refused was written.
	for _, row := range []string{"r", "big"} {
		if r, err := db.Open("t").ReadRow(ctx, row); err != nil || r != nil {
			t.Errorf("row %q after refused writes = %v, %v; want none", row, r, err)
		}
	}
}

// TestMutateRowsStatusPerEntry checks that one bad entry fails alone.
func TestMutateRowsStatusPerEntry(t *testing.T) {
	db, srv := serve(t)
	newTable(t, db)
	c := btpb.NewBigtableClient(dial(t, srv.Addr()))
	s, err := c.MutateRows(t.Context(), &btpb.MutateRowsRequest{TableName: testTable, Entries: []*btpb.MutateRowsRequest_Entry{
		{RowKey: []byte("a"), Mutations: []*btpb.Mutation{setCell("A", "q", []byte("1"))}},
		{RowKey: []byte("b"), Mutations: []*btpb.Mutation{setCell("Z", "q", []byte("2"))}},
		{RowKey: nil, Mutations: []*btpb.Mutation{setCell("A", "q", []byte("3"))}},
		{RowKey: []byte("d"), Mutations: []*btpb.Mutation{setCell("B", "q", []byte("4"))}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]codes.Code{}
	for {
		resp, err := s.Recv()
		if err != nil {
			break
		}
		for _, e := range resp.Entries {
			got[e.Index] = codes.Code(e.Status.GetCode())
		}
	}
	want := map[int64]codes.Code{0: codes.OK, 1: codes.NotFound, 2: codes.InvalidArgument, 3: codes.OK}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("entry %d: code %v, want %v", i, got[i], w)
		}
	}
	for _, row := range []string{"a", "d"} {
		if r, err := db.Open("t").ReadRow(t.Context(), row); err != nil || r == nil {
			t.Errorf("row %q = %v, %v; want written", row, r, err)
		}
	}
}

// bytesCodec sends []byte messages as they are, to put malformed bytes on
// the wire.
type bytesCodec struct{}

func (bytesCodec) Name() string                  { return "proto" }
func (bytesCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (bytesCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}

// TestMalformedBytes sends bytes that are no protobuf message: the call
// fails with a status, the server keeps serving, and nothing is written.
func TestMalformedBytes(t *testing.T) {
	db, srv := serve(t)
	newTable(t, db)
	conn := dial(t, srv.Addr())
	var out []byte
	err := conn.Invoke(t.Context(), "/google.bigtable.v2.Bigtable/MutateRow", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1}, &out, grpc.ForceCodec(bytesCodec{}))
	if c := status.Code(err); c == codes.OK || c == codes.Unavailable {
		t.Errorf("MutateRow of malformed bytes = %v, want a refusal", err)
	}
	c := btpb.NewBigtableClient(conn)
	if _, err := c.MutateRow(t.Context(), &btpb.MutateRowRequest{TableName: testTable, RowKey: []byte("r"), Mutations: []*btpb.Mutation{setCell("A", "q", []byte("v"))}}); err != nil {
		t.Errorf("a good MutateRow after the malformed one: %v", err)
	}
}

// TestDeadlineMidStream gives a long read a deadline and receives nothing
// until it has passed: the client sees DeadlineExceeded and the server's
// handler ends.
func TestDeadlineMidStream(t *testing.T) {
	db, srv := serve(t, withBatchBytes(4<<10))
	tbl := newTable(t, db)
	rows := make([]string, 2000)
	muts := make([]*bigtable.Mutation, len(rows))
	for i := range rows {
		rows[i] = fmt.Sprintf("r%05d", i)
		muts[i] = bigtable.NewMutation()
		muts[i].Set("A", "q", 1000, make([]byte, 1000))
	}
	if _, err := tbl.ApplyBulk(t.Context(), rows, muts); err != nil {
		t.Fatal(err)
	}
	// Connect first, so that the deadline falls on the stream and not on
	// dialling a busy machine.
	client := btpb.NewBigtableClient(dial(t, srv.Addr()))
	if _, err := client.PingAndWarm(t.Context(), &btpb.PingAndWarmRequest{Name: "projects/p/instances/i"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	stream, err := client.ReadRows(ctx, &btpb.ReadRowsRequest{TableName: testTable})
	if err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	for err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("stream ended with %v, want DeadlineExceeded", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for handlersRunning() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := handlersRunning(); n > 0 {
		t.Errorf("%d ReadRows handlers still run after the deadline", n)
	}
}
