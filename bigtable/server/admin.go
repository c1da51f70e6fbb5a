package server

import (
	"context"
	"maps"
	"slices"

	adminpb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/emptypb"
)

// adminServer is the table admin API,
// google.bigtable.admin.v2.BigtableTableAdmin, over one DB: tables, their
// column families and GC rules, and dropping rows. Backups, snapshots,
// authorized views and the rest answer Unimplemented.
type adminServer struct {
	adminpb.UnimplementedBigtableTableAdminServer
	db  *bigtable.DB
	cfg config
}

// refuseProtected answers FailedPrecondition for a table a program is
// writing.
func (s *adminServer) refuseProtected(table, what string) error {
	if s.cfg.protected[table] {
		return statusf(codes.FailedPrecondition, "table %q is being written by the program serving it (a crawl): %s is refused while it runs", table, what)
	}
	return nil
}

// CreateTable creates a table with the column families (and GC rules) it
// names. Initial splits are ignored: the store splits tablets itself.
func (s *adminServer) CreateTable(ctx context.Context, req *adminpb.CreateTableRequest) (*adminpb.Table, error) {
	parent, err := parseParent(req.Parent)
	if err != nil {
		return nil, err
	}
	if req.TableId == "" {
		return nil, statusf(codes.InvalidArgument, "table_id is empty")
	}
	policies := map[string]bigtable.GCPolicy{}
	for fam, cf := range req.GetTable().GetColumnFamilies() {
		p, err := wire.GCPolicy(cf.GetGcRule())
		if err != nil {
			return nil, toStatus(err)
		}
		policies[fam] = p
	}
	if err := s.db.CreateTable(ctx, req.TableId); err != nil {
		return nil, toStatus(err)
	}
	for _, fam := range slices.Sorted(maps.Keys(policies)) {
		if err := s.createFamily(ctx, req.TableId, fam, policies[fam]); err != nil {
			return nil, err
		}
	}
	return s.describe(ctx, parent, req.TableId, adminpb.Table_SCHEMA_VIEW)
}

func (s *adminServer) createFamily(ctx context.Context, table, fam string, p bigtable.GCPolicy) error {
	if err := s.db.CreateColumnFamily(ctx, table, fam); err != nil {
		return toStatus(err)
	}
	return toStatus(s.db.SetGCPolicy(ctx, table, fam, p))
}

// describe answers a table as GetTable shows it.
func (s *adminServer) describe(ctx context.Context, parent, table string, view adminpb.Table_View) (*adminpb.Table, error) {
	out := &adminpb.Table{Name: parent + "/tables/" + table}
	fams, err := s.db.Families(ctx, table)
	if err != nil {
		return nil, toStatus(err)
	}
	if view == adminpb.Table_NAME_ONLY {
		return out, nil
	}
	out.ColumnFamilies = make(map[string]*adminpb.ColumnFamily, len(fams))
	for fam, p := range fams {
		rule, err := wire.GCRule(p)
		if err != nil {
			return nil, toStatus(err)
		}
		out.ColumnFamilies[fam] = &adminpb.ColumnFamily{GcRule: rule}
	}
	return out, nil
}

// GetTable answers a table with its column families and their GC rules.
func (s *adminServer) GetTable(ctx context.Context, req *adminpb.GetTableRequest) (*adminpb.Table, error) {
	parent, table, err := parseTable(req.Name)
	if err != nil {
		return nil, err
	}
	return s.describe(ctx, parent, table, req.View)
}

// ListTables answers every table, in name order; with the schema or full
// view each comes with its column families.
func (s *adminServer) ListTables(ctx context.Context, req *adminpb.ListTablesRequest) (*adminpb.ListTablesResponse, error) {
	parent, err := parseParent(req.Parent)
	if err != nil {
		return nil, err
	}
	names, err := s.db.Tables(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	view := adminpb.Table_NAME_ONLY
	if req.View == adminpb.Table_SCHEMA_VIEW || req.View == adminpb.Table_FULL {
		view = adminpb.Table_SCHEMA_VIEW
	}
	out := &adminpb.ListTablesResponse{}
	for _, name := range names {
		t, err := s.describe(ctx, parent, name, view)
		if codeOf(err) == codes.NotFound {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out.Tables = append(out.Tables, t)
	}
	return out, nil
}

// DeleteTable deletes a table and its rows.
func (s *adminServer) DeleteTable(ctx context.Context, req *adminpb.DeleteTableRequest) (*emptypb.Empty, error) {
	_, table, err := parseTable(req.Name)
	if err != nil {
		return nil, err
	}
	if err := s.refuseProtected(table, "DeleteTable"); err != nil {
		return nil, err
	}
	if err := s.db.DeleteTable(ctx, table); err != nil {
		return nil, toStatus(err)
	}
	return &emptypb.Empty{}, nil
}

// ModifyColumnFamilies creates, updates (the GC rule) and drops column
// families. An update without update_mask replaces the family's settings,
// which here are its GC rule alone (cbt v1.10.1 sends no mask; the current
// client sends "gc_rule").
func (s *adminServer) ModifyColumnFamilies(ctx context.Context, req *adminpb.ModifyColumnFamiliesRequest) (*adminpb.Table, error) {
	parent, table, err := parseTable(req.Name)
	if err != nil {
		return nil, err
	}
	if len(req.Modifications) == 0 {
		return nil, statusf(codes.InvalidArgument, "no modifications given")
	}
	// Check every modification before making any, so that a bad one
	// changes nothing.
	type change struct {
		fam          string
		create, drop bool
		policy       bigtable.GCPolicy
	}
	changes := make([]change, len(req.Modifications))
	for i, m := range req.Modifications {
		c := change{fam: m.Id}
		if m.Id == "" {
			return nil, statusf(codes.InvalidArgument, "modifications[%d]: empty family id", i)
		}
		var cf *adminpb.ColumnFamily
		switch x := m.Mod.(type) {
		case *adminpb.ModifyColumnFamiliesRequest_Modification_Create:
			c.create, cf = true, x.Create
		case *adminpb.ModifyColumnFamiliesRequest_Modification_Update:
			cf = x.Update
			for _, p := range m.GetUpdateMask().GetPaths() {
				if p != "gc_rule" {
					return nil, statusf(codes.Unimplemented, "modifications[%d]: update_mask path %q: only gc_rule can be changed here", i, p)
				}
			}
		case *adminpb.ModifyColumnFamiliesRequest_Modification_Drop:
			if !x.Drop {
				return nil, statusf(codes.InvalidArgument, "modifications[%d]: drop must be true", i)
			}
			if err := s.refuseProtected(table, "dropping a column family"); err != nil {
				return nil, err
			}
			c.drop = true
		default:
			return nil, statusf(codes.InvalidArgument, "modifications[%d]: none of create, update, drop", i)
		}
		if cf.GetValueType() != nil {
			return nil, statusf(codes.Unimplemented, "modifications[%d]: typed (aggregate) column families are not supported by this server", i)
		}
		if !c.drop {
			if c.policy, err = wire.GCPolicy(cf.GetGcRule()); err != nil {
				return nil, toStatus(err)
			}
		}
		changes[i] = c
	}
	for _, c := range changes {
		switch {
		case c.create:
			err = s.createFamily(ctx, table, c.fam, c.policy)
		case c.drop:
			err = toStatus(s.db.DeleteColumnFamily(ctx, table, c.fam))
		default:
			err = toStatus(s.db.SetGCPolicy(ctx, table, c.fam, c.policy))
		}
		if err != nil {
			return nil, err
		}
	}
	return s.describe(ctx, parent, table, adminpb.Table_SCHEMA_VIEW)
}

// dropBatch is how many rows DropRowRange deletes per write.
const dropBatch = 1000

// DropRowRange deletes every row with a prefix, or every row of the table.
func (s *adminServer) DropRowRange(ctx context.Context, req *adminpb.DropRowRangeRequest) (*emptypb.Empty, error) {
	_, table, err := parseTable(req.Name)
	if err != nil {
		return nil, err
	}
	var rs bigtable.RowSet
	switch x := req.Target.(type) {
	case *adminpb.DropRowRangeRequest_RowKeyPrefix:
		if len(x.RowKeyPrefix) == 0 {
			return nil, statusf(codes.InvalidArgument, "row_key_prefix is empty (use delete_all_data_from_table)")
		}
		rs = bigtable.PrefixRange(string(x.RowKeyPrefix))
	case *adminpb.DropRowRangeRequest_DeleteAllDataFromTable:
		if !x.DeleteAllDataFromTable {
			return nil, statusf(codes.InvalidArgument, "delete_all_data_from_table must be true")
		}
		rs = bigtable.InfiniteRange("")
	default:
		return nil, statusf(codes.InvalidArgument, "neither row_key_prefix nor delete_all_data_from_table given")
	}
	if err := s.refuseProtected(table, "DropRowRange"); err != nil {
		return nil, err
	}
	if err := dropRows(ctx, s.db.Open(table), rs); err != nil {
		return nil, toStatus(err)
	}
	return &emptypb.Empty{}, nil
}

// dropRows deletes the rows of rs in batches, reading keys only.
func dropRows(ctx context.Context, tbl *bigtable.Table, rs bigtable.RowSet) error {
	keysOnly := bigtable.RowFilter(bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter()))
	for {
		var rows []string
		err := tbl.ReadRows(ctx, rs, func(r bigtable.Row) bool {
			rows = append(rows, r.Key())
			return true
		}, keysOnly, bigtable.LimitRows(dropBatch))
		if err != nil || len(rows) == 0 {
			return err
		}
		muts := make([]*bigtable.Mutation, len(rows))
		for i := range muts {
			muts[i] = bigtable.NewMutation()
			muts[i].DeleteRow()
		}
		errs, err := tbl.ApplyBulk(ctx, rows, muts)
		if err != nil {
			return err
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
}
