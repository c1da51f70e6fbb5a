package wire

import (
	"reflect"
	"testing"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

// TestFilterSpec translates one RowFilter of every kind bigtable has and
// checks the description of the result (spec.Filter, which bigtable/cloud
// translates to the Cloud client): the gRPC server and the Cloud adapter
// thereby agree on one description, and a filter kind added to bigtable
// fails here until this translator covers it.
func TestFilterSpec(t *testing.T) {
	fam := &btpb.RowFilter{Filter: &btpb.RowFilter_FamilyNameRegexFilter{FamilyNameRegexFilter: "anchor"}}
	col := &btpb.RowFilter{Filter: &btpb.RowFilter_ColumnQualifierRegexFilter{ColumnQualifierRegexFilter: []byte("cnnsi.com")}}
	famSpec := &spec.Filter{Kind: spec.Family, Pattern: "anchor"}
	colSpec := &spec.Filter{Kind: spec.Column, Pattern: "cnnsi.com"}
	cases := []struct {
		in   *btpb.RowFilter
		want *spec.Filter
	}{
		{&btpb.RowFilter{Filter: &btpb.RowFilter_Chain_{Chain: &btpb.RowFilter_Chain{Filters: []*btpb.RowFilter{fam, col}}}},
			&spec.Filter{Kind: spec.Chain, Sub: []*spec.Filter{famSpec, colSpec}}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_Interleave_{Interleave: &btpb.RowFilter_Interleave{Filters: []*btpb.RowFilter{fam, col}}}},
			&spec.Filter{Kind: spec.Interleave, Sub: []*spec.Filter{famSpec, colSpec}}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_Condition_{Condition: &btpb.RowFilter_Condition{PredicateFilter: fam, FalseFilter: col}}},
			&spec.Filter{Kind: spec.Condition, Predicate: famSpec, False: colSpec}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_RowKeyRegexFilter{RowKeyRegexFilter: []byte("com\\.cnn.*")}},
			&spec.Filter{Kind: spec.RowKey, Pattern: "com\\.cnn.*"}},
		{fam, famSpec},
		{col, colSpec},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_ValueRegexFilter{ValueRegexFilter: []byte("CNN")}},
			&spec.Filter{Kind: spec.Value, Pattern: "CNN"}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_ValueRangeFilter{ValueRangeFilter: &btpb.ValueRange{
			StartValue: &btpb.ValueRange_StartValueClosed{StartValueClosed: []byte("a")},
			EndValue:   &btpb.ValueRange_EndValueOpen{EndValueOpen: []byte("m")}}}},
			&spec.Filter{Kind: spec.ValueRange, StartValue: []byte("a"), EndValue: []byte("m")}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_ColumnRangeFilter{ColumnRangeFilter: &btpb.ColumnRange{FamilyName: "anchor",
			StartQualifier: &btpb.ColumnRange_StartQualifierClosed{StartQualifierClosed: []byte("a")},
			EndQualifier:   &btpb.ColumnRange_EndQualifierOpen{EndQualifierOpen: []byte("m")}}}},
			&spec.Filter{Kind: spec.ColumnRange, Family: "anchor", StartQualifier: "a", EndQualifier: "m"}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_CellsPerColumnLimitFilter{CellsPerColumnLimitFilter: 3}},
			&spec.Filter{Kind: spec.LatestN, N: 3}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_StripValueTransformer{StripValueTransformer: true}},
			&spec.Filter{Kind: spec.StripValue}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_TimestampRangeFilter{TimestampRangeFilter: &btpb.TimestampRange{StartTimestampMicros: 1000, EndTimestampMicros: 2000}}},
			&spec.Filter{Kind: spec.TimestampRange, Start: 1000, End: 2000}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_CellsPerRowLimitFilter{CellsPerRowLimitFilter: 4}},
			&spec.Filter{Kind: spec.CellsPerRowLimit, N: 4}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_CellsPerRowOffsetFilter{CellsPerRowOffsetFilter: 2}},
			&spec.Filter{Kind: spec.CellsPerRowOffset, N: 2}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_RowSampleFilter{RowSampleFilter: 0.25}},
			&spec.Filter{Kind: spec.RowSample, Probability: 0.25}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_PassAllFilter{PassAllFilter: true}},
			&spec.Filter{Kind: spec.PassAll}},
		{&btpb.RowFilter{Filter: &btpb.RowFilter_BlockAllFilter{BlockAllFilter: true}},
			&spec.Filter{Kind: spec.BlockAll}},
	}
	covered := map[spec.FilterKind]bool{}
	for _, tc := range cases {
		covered[tc.want.Kind] = true
		name := tc.want.Kind.String()
		t.Run(name, func(t *testing.T) {
			f, err := Filter(tc.in)
			if err != nil {
				t.Fatalf("Filter(%v): %v", tc.in, err)
			}
			got, err := spec.FilterOf(f)
			if err != nil {
				t.Fatalf("FilterOf(%v): %v", f, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Filter(%v) is described as %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
	// Every kind bigtable describes must have a case above.
	for k := spec.FilterKind(1); k.String() != "FilterKind(?)"; k++ {
		if !covered[k] {
			t.Errorf("filter kind %v has no case: translate it in filter.go and add one here", k)
		}
	}
}
