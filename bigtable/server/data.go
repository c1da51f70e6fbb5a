package server

import (
	"context"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/wire"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// dataServer is the data API, google.bigtable.v2.Bigtable, over one DB.
type dataServer struct {
	btpb.UnimplementedBigtableServer
	db  *bigtable.DB
	cfg config
}

// table returns the table a request names.
func (s *dataServer) table(name string) (*bigtable.Table, error) {
	_, t, err := parseTable(name)
	if err != nil {
		return nil, err
	}
	return s.db.Open(t), nil
}

// noViews refuses requests through an authorized view.
func noViews(view string) error {
	if view != "" {
		return statusf(codes.Unimplemented, "authorized views are not supported by this server")
	}
	return nil
}

// rowTable vets a one-row request (no authorized view, a table name, a
// row key) and returns the table it names.
func (s *dataServer) rowTable(view, name string, key []byte) (*bigtable.Table, error) {
	if err := noViews(view); err != nil {
		return nil, err
	}
	tbl, err := s.table(name)
	if err != nil {
		return nil, err
	}
	if err := checkRowKey(key); err != nil {
		return nil, err
	}
	return tbl, nil
}

// checkRowKey refuses an empty row key, as Cloud Bigtable does.
func checkRowKey(key []byte) error {
	if len(key) == 0 {
		return statusf(codes.InvalidArgument, "row_key is empty")
	}
	return nil
}

// MutateRow applies one row's mutations atomically.
func (s *dataServer) MutateRow(ctx context.Context, req *btpb.MutateRowRequest) (*btpb.MutateRowResponse, error) {
	tbl, err := s.rowTable(req.AuthorizedViewName, req.TableName, req.RowKey)
	if err != nil {
		return nil, err
	}
	m, err := wire.Mutation(req.Mutations, "mutations")
	if err != nil {
		return nil, toStatus(err)
	}
	if err := tbl.Apply(ctx, string(req.RowKey), m); err != nil {
		return nil, toStatus(err)
	}
	return &btpb.MutateRowResponse{}, nil
}

// MutateRows applies the mutations of many rows, each atomically, and
// answers a status per entry.
func (s *dataServer) MutateRows(req *btpb.MutateRowsRequest, stream btpb.Bigtable_MutateRowsServer) error {
	if err := noViews(req.AuthorizedViewName); err != nil {
		return err
	}
	tbl, err := s.table(req.TableName)
	if err != nil {
		return err
	}
	if len(req.Entries) == 0 {
		return statusf(codes.InvalidArgument, "no entries given")
	}
	entries := make([]*btpb.MutateRowsResponse_Entry, len(req.Entries))
	var rows []string
	var muts []*bigtable.Mutation
	var index []int // index[i] is the entry of rows[i]
	for i, e := range req.Entries {
		entries[i] = &btpb.MutateRowsResponse_Entry{Index: int64(i), Status: &statuspb.Status{}}
		err := checkRowKey(e.RowKey)
		var m *bigtable.Mutation
		if err == nil {
			m, err = wire.Mutation(e.Mutations, "entries["+itoa(i)+"].mutations")
		}
		if err != nil {
			entries[i].Status = status.Convert(toStatus(err)).Proto()
			continue
		}
		rows, muts, index = append(rows, string(e.RowKey)), append(muts, m), append(index, i)
	}
	if len(rows) > 0 {
		errs, err := tbl.ApplyBulk(stream.Context(), rows, muts)
		if err != nil {
			return toStatus(err)
		}
		for j, err := range errs {
			if err != nil {
				entries[index[j]].Status = status.Convert(toStatus(err)).Proto()
			}
		}
	}
	return stream.Send(&btpb.MutateRowsResponse{Entries: entries})
}

// CheckAndMutateRow applies one of two mutations depending on whether a
// filter passes any cell of the row, atomically.
func (s *dataServer) CheckAndMutateRow(ctx context.Context, req *btpb.CheckAndMutateRowRequest) (*btpb.CheckAndMutateRowResponse, error) {
	tbl, err := s.rowTable(req.AuthorizedViewName, req.TableName, req.RowKey)
	if err != nil {
		return nil, err
	}
	pred, err := wire.Filter(req.PredicateFilter)
	if err != nil {
		return nil, toStatus(err)
	}
	mtrue, err := wire.CondBranch(req.TrueMutations, "true_mutations")
	if err != nil {
		return nil, toStatus(err)
	}
	mfalse, err := wire.CondBranch(req.FalseMutations, "false_mutations")
	if err != nil {
		return nil, toStatus(err)
	}
	var matched bool
	m := bigtable.NewCondMutation(pred, mtrue, mfalse)
	if err := tbl.Apply(ctx, string(req.RowKey), m, bigtable.GetCondMutationResult(&matched)); err != nil {
		return nil, toStatus(err)
	}
	return &btpb.CheckAndMutateRowResponse{PredicateMatched: matched}, nil
}

// ReadModifyWriteRow applies increments and appends to a row atomically
// and answers the cells they wrote.
func (s *dataServer) ReadModifyWriteRow(ctx context.Context, req *btpb.ReadModifyWriteRowRequest) (*btpb.ReadModifyWriteRowResponse, error) {
	tbl, err := s.rowTable(req.AuthorizedViewName, req.TableName, req.RowKey)
	if err != nil {
		return nil, err
	}
	m, err := wire.ReadModifyWrite(req.Rules)
	if err != nil {
		return nil, toStatus(err)
	}
	row, err := tbl.ApplyReadModifyWrite(ctx, string(req.RowKey), m)
	if err != nil {
		return nil, toStatus(err)
	}
	return &btpb.ReadModifyWriteRowResponse{Row: rowProto(string(req.RowKey), row)}, nil
}

// rowProto gives a row as a Row message: families in name order, cells
// grouped by column in the order the store gave them.
func rowProto(key string, r bigtable.Row) *btpb.Row {
	out := &btpb.Row{Key: []byte(key)}
	for _, fam := range sortedFamilies(r, nil) {
		f := &btpb.Family{Name: fam}
		var col *btpb.Column
		for _, it := range r[fam] {
			qual := it.Column[len(fam)+1:]
			if col == nil || string(col.Qualifier) != qual {
				col = &btpb.Column{Qualifier: []byte(qual)}
				f.Columns = append(f.Columns, col)
			}
			col.Cells = append(col.Cells, &btpb.Cell{TimestampMicros: int64(it.Timestamp), Value: it.Value})
		}
		out.Families = append(out.Families, f)
	}
	return out
}

// SampleRowKeys answers the store's tablet boundaries, each with the bytes
// of the table before it, ending with "" (the end of the table).
func (s *dataServer) SampleRowKeys(req *btpb.SampleRowKeysRequest, stream btpb.Bigtable_SampleRowKeysServer) error {
	if err := noViews(req.AuthorizedViewName); err != nil {
		return err
	}
	_, t, err := parseTable(req.TableName)
	if err != nil {
		return err
	}
	tablets, err := s.db.Tablets(stream.Context(), t)
	if err != nil {
		return toStatus(err)
	}
	var offset int64
	for _, tb := range tablets {
		offset += tb.Bytes
		if err := stream.Send(&btpb.SampleRowKeysResponse{RowKey: []byte(tb.End), OffsetBytes: offset}); err != nil {
			return err
		}
	}
	return nil
}

// PingAndWarm answers at once: there is nothing to warm.
func (s *dataServer) PingAndWarm(ctx context.Context, req *btpb.PingAndWarmRequest) (*btpb.PingAndWarmResponse, error) {
	if _, err := parseParent(req.Name); err != nil {
		return nil, err
	}
	return &btpb.PingAndWarmResponse{}, nil
}
