package server

import (
	"fmt"
	"slices"
	"testing"
	"time"

	adminpb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

func maxVersions(n int32) *adminpb.GcRule {
	return &adminpb.GcRule{Rule: &adminpb.GcRule_MaxNumVersions{MaxNumVersions: n}}
}

// TestModifyColumnFamilies creates, updates (with the mask the current
// client sends and without one, as cbt v1.10.1 sends) and drops families,
// and reads the GC rules back with GetTable and ListTables.
func TestModifyColumnFamilies(t *testing.T) {
	db, srv := serve(t)
	a := adminpb.NewBigtableTableAdminClient(dial(t, srv.Addr()))
	ctx := t.Context()
	const parent = "projects/p/instances/i"
	union := &adminpb.GcRule{Rule: &adminpb.GcRule_Union_{Union: &adminpb.GcRule_Union{Rules: []*adminpb.GcRule{
		maxVersions(2), {Rule: &adminpb.GcRule_MaxAge{MaxAge: durationpb.New(time.Hour)}}}}}}
	if _, err := a.CreateTable(ctx, &adminpb.CreateTableRequest{Parent: parent, TableId: "t", Table: &adminpb.Table{
		ColumnFamilies: map[string]*adminpb.ColumnFamily{"A": {GcRule: union}, "B": {}}}}); err != nil {
		t.Fatal(err)
	}
	mod := func(mods ...*adminpb.ModifyColumnFamiliesRequest_Modification) error {
		_, err := a.ModifyColumnFamilies(ctx, &adminpb.ModifyColumnFamiliesRequest{Name: testTable, Modifications: mods})
		return err
	}
	if err := mod(&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "C",
		Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Create{Create: &adminpb.ColumnFamily{GcRule: maxVersions(1)}}}); err != nil {
		t.Fatal(err)
	}
	if err := mod(&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "B", UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"gc_rule"}},
		Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Update{Update: &adminpb.ColumnFamily{GcRule: maxVersions(3)}}}); err != nil {
		t.Fatalf("update with a mask: %v", err)
	}
	if err := mod(&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "C",
		Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Update{Update: &adminpb.ColumnFamily{GcRule: maxVersions(5)}}}); err != nil {
		t.Fatalf("update without a mask: %v", err)
	}
	err := mod(&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "A", UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"value_type"}},
		Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Update{Update: &adminpb.ColumnFamily{}}})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("update of value_type = %v, want Unimplemented", err)
	}
	// A bad modification after a good one changes nothing.
	err = mod(&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "D", Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Create{Create: &adminpb.ColumnFamily{}}},
		&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "E", Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Create{Create: &adminpb.ColumnFamily{GcRule: maxVersions(-1)}}})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("create with a negative GC rule = %v, want InvalidArgument", err)
	}
	want := map[string]string{
		"A": bigtable.UnionPolicy(bigtable.MaxVersionsPolicy(2), bigtable.MaxAgePolicy(time.Hour)).String(),
		"B": bigtable.MaxVersionsPolicy(3).String(),
		"C": bigtable.MaxVersionsPolicy(5).String(),
	}
	check := func(what string, fams map[string]*adminpb.ColumnFamily) {
		t.Helper()
		if len(fams) != len(want) {
			t.Errorf("%s: families %v, want %v", what, fams, want)
		}
		for f, w := range want {
			p, err := gcPolicyOf(fams[f].GetGcRule())
			if err != nil || p != w {
				t.Errorf("%s: family %s GC %q (%v), want %q", what, f, p, err, w)
			}
		}
	}
	tbl, err := a.GetTable(ctx, &adminpb.GetTableRequest{Name: testTable})
	if err != nil {
		t.Fatal(err)
	}
	check("GetTable", tbl.ColumnFamilies)
	list, err := a.ListTables(ctx, &adminpb.ListTablesRequest{Parent: parent, View: adminpb.Table_SCHEMA_VIEW})
	if err != nil || len(list.Tables) != 1 || list.Tables[0].Name != testTable {
		t.Fatalf("ListTables = %v, %v; want one table %s", list, err, testTable)
	}
	check("ListTables", list.Tables[0].ColumnFamilies)
	if err := mod(&adminpb.ModifyColumnFamiliesRequest_Modification{Id: "C", Mod: &adminpb.ModifyColumnFamiliesRequest_Modification_Drop{Drop: true}}); err != nil {
		t.Fatal(err)
	}
	fams, err := db.Families(ctx, "t")
	if err != nil || len(fams) != 2 {
		t.Errorf("families after dropping C = %v, %v; want A and B", fams, err)
	}
	if _, err := a.GetTable(ctx, &adminpb.GetTableRequest{Name: parent + "/tables/nope"}); status.Code(err) != codes.NotFound {
		t.Errorf("GetTable of a missing table = %v, want NotFound", err)
	}
}

func gcPolicyOf(r *adminpb.GcRule) (string, error) {
	p, err := wire.GCPolicy(r)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// TestProtectedTable checks that the table a crawl writes can be neither
// deleted nor emptied through the server, while others can.
func TestProtectedTable(t *testing.T) {
	db, srv := serve(t, WithProtectedTables("t"))
	tbl := newTable(t, db)
	ctx := t.Context()
	if err := db.CreateTable(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "other", "A"); err != nil {
		t.Fatal(err)
	}
	for i := range 2500 {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, []byte("v"))
		row := fmt.Sprintf("k%04d", i)
		if i%2 == 0 {
			row = fmt.Sprintf("j%04d", i)
		}
		if err := db.Open("other").Apply(ctx, row, m); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := tbl.Apply(ctx, row, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := adminpb.NewBigtableTableAdminClient(dial(t, srv.Addr()))
	all := &adminpb.DropRowRangeRequest_DeleteAllDataFromTable{DeleteAllDataFromTable: true}
	if _, err := a.DeleteTable(ctx, &adminpb.DeleteTableRequest{Name: testTable}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("DeleteTable of the crawl's table = %v, want FailedPrecondition", err)
	}
	if _, err := a.DropRowRange(ctx, &adminpb.DropRowRangeRequest{Name: testTable, Target: all}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("DropRowRange of the crawl's table = %v, want FailedPrecondition", err)
	}
	if r, err := tbl.ReadRow(ctx, "j0000"); err != nil || r == nil {
		t.Errorf("the crawl's row after refused drops = %v, %v", r, err)
	}
	other := "projects/p/instances/i/tables/other"
	if _, err := a.DropRowRange(ctx, &adminpb.DropRowRangeRequest{Name: other, Target: &adminpb.DropRowRangeRequest_RowKeyPrefix{RowKeyPrefix: []byte("j")}}); err != nil {
		t.Fatalf("DropRowRange(prefix j): %v", err)
	}
	var keys []string
	if err := db.Open("other").ReadRows(ctx, bigtable.InfiniteRange(""), func(r bigtable.Row) bool { keys = append(keys, r.Key()); return true }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1250 || slices.ContainsFunc(keys, func(k string) bool { return k[0] == 'j' }) {
		t.Errorf("after dropping prefix j: %d rows (want the 1250 k rows)", len(keys))
	}
	if _, err := a.DeleteTable(ctx, &adminpb.DeleteTableRequest{Name: other}); err != nil {
		t.Errorf("DeleteTable(other): %v", err)
	}
}
