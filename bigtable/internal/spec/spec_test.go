package spec_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

func TestFilterOf(t *testing.T) {
	pass := &spec.Filter{Kind: spec.PassAll}
	block := &spec.Filter{Kind: spec.BlockAll}
	tests := []struct {
		name string
		f    bigtable.Filter
		want *spec.Filter
	}{
		{"nil", nil, nil},
		{"chain", bigtable.ChainFilters(bigtable.PassAllFilter(), nil, bigtable.BlockAllFilter()),
			&spec.Filter{Kind: spec.Chain, Sub: []*spec.Filter{pass, nil, block}}},
		{"empty chain", bigtable.ChainFilters(), &spec.Filter{Kind: spec.Chain, Sub: []*spec.Filter{}}},
		{"interleave", bigtable.InterleaveFilters(bigtable.BlockAllFilter(), bigtable.PassAllFilter()),
			&spec.Filter{Kind: spec.Interleave, Sub: []*spec.Filter{block, pass}}},
		{"condition", bigtable.ConditionFilter(bigtable.PassAllFilter(), nil, bigtable.BlockAllFilter()),
			&spec.Filter{Kind: spec.Condition, Predicate: pass, False: block}},
		{"row key", bigtable.RowKeyFilter("com\\..*"), &spec.Filter{Kind: spec.RowKey, Pattern: "com\\..*"}},
		{"family", bigtable.FamilyFilter("anchor"), &spec.Filter{Kind: spec.Family, Pattern: "anchor"}},
		{"column", bigtable.ColumnFilter("cnnsi.com"), &spec.Filter{Kind: spec.Column, Pattern: "cnnsi.com"}},
		{"value", bigtable.ValueFilter("CNN"), &spec.Filter{Kind: spec.Value, Pattern: "CNN"}},
		{"value range", bigtable.ValueRangeFilter([]byte("a"), nil),
			&spec.Filter{Kind: spec.ValueRange, StartValue: []byte("a")}},
		{"column range", bigtable.ColumnRangeFilter("A", "b", "d"),
			&spec.Filter{Kind: spec.ColumnRange, Family: "A", StartQualifier: "b", EndQualifier: "d"}},
		{"latest n", bigtable.LatestNFilter(3), &spec.Filter{Kind: spec.LatestN, N: 3}},
		{"strip value", bigtable.StripValueFilter(), &spec.Filter{Kind: spec.StripValue}},
		{"timestamp range micros", bigtable.TimestampRangeFilterMicros(4000, 15000),
			&spec.Filter{Kind: spec.TimestampRange, Start: 4000, End: 15000}},
		{"timestamp range", bigtable.TimestampRangeFilter(time.UnixMilli(4), time.Time{}),
			&spec.Filter{Kind: spec.TimestampRange, Start: 4000}},
		{"cells per row limit", bigtable.CellsPerRowLimitFilter(2), &spec.Filter{Kind: spec.CellsPerRowLimit, N: 2}},
		{"cells per row offset", bigtable.CellsPerRowOffsetFilter(1), &spec.Filter{Kind: spec.CellsPerRowOffset, N: 1}},
		{"row sample", bigtable.RowSampleFilter(0.5), &spec.Filter{Kind: spec.RowSample, Probability: 0.5}},
		{"pass all", bigtable.PassAllFilter(), pass},
		{"block all", bigtable.BlockAllFilter(), block},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spec.FilterOf(tc.f)
			if err != nil {
				t.Fatalf("FilterOf(%v): %v", tc.f, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FilterOf(%v) mismatch (-want +got):\n%s", tc.f, diff)
			}
		})
	}
}

func TestRowSetOf(t *testing.T) {
	tests := []struct {
		name string
		rs   bigtable.RowSet
		want spec.RowSet
	}{
		{"nil", nil, spec.RowSet{}},
		{"single row", bigtable.SingleRow("aaa"), spec.RowSet{Kind: spec.ListSet, Keys: []string{"aaa"}}},
		{"row list", bigtable.RowList{"b", "", "a"}, spec.RowSet{Kind: spec.ListSet, Keys: []string{"b", "", "a"}}},
		{"new range", bigtable.NewRange("a", "c"), rangeSet(spec.Closed, "a", spec.Open, "c")},
		{"closed open", bigtable.NewClosedOpenRange("a", "c"), rangeSet(spec.Closed, "a", spec.Open, "c")},
		{"open closed", bigtable.NewOpenClosedRange("a", "c"), rangeSet(spec.Open, "a", spec.Closed, "c")},
		{"open", bigtable.NewOpenRange("a", "c"), rangeSet(spec.Open, "a", spec.Open, "c")},
		{"closed", bigtable.NewClosedRange("a", "c"), rangeSet(spec.Closed, "a", spec.Closed, "c")},
		{"prefix", bigtable.PrefixRange("a\xff"), rangeSet(spec.Closed, "a\xff", spec.Open, "b")},
		{"prefix all", bigtable.PrefixRange(""), rangeSet(spec.Unbounded, "", spec.Unbounded, "")},
		{"infinite", bigtable.InfiniteRange("m"), rangeSet(spec.Closed, "m", spec.Unbounded, "")},
		{"infinite reverse", bigtable.InfiniteReverseRange("m"), rangeSet(spec.Unbounded, "", spec.Closed, "m")},
		{"range list", bigtable.RowRangeList{bigtable.NewRange("a", "b"), bigtable.InfiniteRange("x")},
			spec.RowSet{Kind: spec.RangeListSet, Ranges: []spec.RowRange{
				{StartBound: spec.Closed, Start: "a", EndBound: spec.Open, End: "b"},
				{StartBound: spec.Closed, Start: "x"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spec.RowSetOf(tc.rs)
			if err != nil {
				t.Fatalf("RowSetOf(%v): %v", tc.rs, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RowSetOf(%v) mismatch (-want +got):\n%s", tc.rs, diff)
			}
		})
	}
}

func rangeSet(sb spec.Bound, start string, eb spec.Bound, end string) spec.RowSet {
	return spec.RowSet{Kind: spec.RangeSet, Ranges: []spec.RowRange{{StartBound: sb, Start: start, EndBound: eb, End: end}}}
}

func TestMutationOf(t *testing.T) {
	m := bigtable.NewMutation()
	m.Set("A", "foo", 15000, []byte("y"))
	m.Set("A", "bar", bigtable.ServerTime, nil)
	m.DeleteCellsInColumn("A", "foo")
	m.DeleteTimestampRange("A", "foo", 1000, 0)
	m.DeleteCellsInFamily("B")
	m.DeleteRow()
	plain := &spec.Mutation{Ops: []spec.Op{
		{Kind: spec.Set, Family: "A", Qualifier: "foo", Timestamp: 15000, Value: []byte("y")},
		{Kind: spec.Set, Family: "A", Qualifier: "bar", Timestamp: -1},
		{Kind: spec.DeleteCellsInColumn, Family: "A", Qualifier: "foo"},
		{Kind: spec.DeleteTimestampRange, Family: "A", Qualifier: "foo", Start: 1000},
		{Kind: spec.DeleteCellsInFamily, Family: "B"},
		{Kind: spec.DeleteRow},
	}}
	tests := []struct {
		name string
		m    *bigtable.Mutation
		want *spec.Mutation
	}{
		{"nil", nil, nil},
		{"every op", m, plain},
		{"cond", bigtable.NewCondMutation(bigtable.FamilyFilter("A"), m, nil), &spec.Mutation{
			Ops: []spec.Op{}, Cond: true, Predicate: &spec.Filter{Kind: spec.Family, Pattern: "A"}, True: plain}},
		{"cond without filter", bigtable.NewCondMutation(nil, nil, m), &spec.Mutation{
			Ops: []spec.Op{}, Cond: true, False: plain}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spec.MutationOf(tc.m)
			if err != nil {
				t.Fatalf("MutationOf: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MutationOf mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyOptionsOf(t *testing.T) {
	var a, b bool
	got, err := spec.ApplyOptionsOf([]bigtable.ApplyOption{bigtable.GetCondMutationResult(&a), bigtable.GetCondMutationResult(&b)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.CondResults) != 2 || got.CondResults[0] != &a || got.CondResults[1] != &b {
		t.Errorf("ApplyOptionsOf = %v, want pointers to a and b", got.CondResults)
	}
}

func TestReadOptionsOf(t *testing.T) {
	tests := []struct {
		name string
		opts []bigtable.ReadOption
		want spec.ReadSettings
	}{
		{"none", nil, spec.ReadSettings{}},
		{"limit zero", []bigtable.ReadOption{bigtable.LimitRows(0)}, spec.ReadSettings{LimitSet: true}},
		{"last limit counts", []bigtable.ReadOption{bigtable.LimitRows(1), bigtable.LimitRows(-1)}, spec.ReadSettings{Limit: -1, LimitSet: true}},
		{"limit", []bigtable.ReadOption{bigtable.LimitRows(3)}, spec.ReadSettings{Limit: 3, LimitSet: true}},
		{"filter and limit", []bigtable.ReadOption{bigtable.RowFilter(bigtable.LatestNFilter(1)), bigtable.LimitRows(2)},
			spec.ReadSettings{Filter: &spec.Filter{Kind: spec.LatestN, N: 1}, Limit: 2, LimitSet: true}},
		{"two filters chain", []bigtable.ReadOption{bigtable.RowFilter(bigtable.PassAllFilter()), bigtable.RowFilter(bigtable.StripValueFilter())},
			spec.ReadSettings{Filter: &spec.Filter{Kind: spec.Chain, Sub: []*spec.Filter{{Kind: spec.PassAll}, {Kind: spec.StripValue}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spec.ReadOptionsOf(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadOptionsOf mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGCPolicyOf(t *testing.T) {
	tests := []struct {
		name string
		p    bigtable.GCPolicy
		want spec.GCPolicy
	}{
		{"nil", nil, spec.GCPolicy{}},
		{"no gc", bigtable.NoGcPolicy(), spec.GCPolicy{}},
		{"max versions", bigtable.MaxVersionsPolicy(3), spec.GCPolicy{Kind: spec.MaxVersions, Versions: 3}},
		{"max age", bigtable.MaxAgePolicy(time.Hour), spec.GCPolicy{Kind: spec.MaxAge, Age: time.Hour}},
		{"union", bigtable.UnionPolicy(bigtable.MaxVersionsPolicy(1), bigtable.MaxAgePolicy(time.Hour)),
			spec.GCPolicy{Kind: spec.Union, Sub: []spec.GCPolicy{{Kind: spec.MaxVersions, Versions: 1}, {Kind: spec.MaxAge, Age: time.Hour}}}},
		{"intersection", bigtable.IntersectionPolicy(bigtable.MaxVersionsPolicy(2)),
			spec.GCPolicy{Kind: spec.Intersection, Sub: []spec.GCPolicy{{Kind: spec.MaxVersions, Versions: 2}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spec.GCPolicyOf(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("GCPolicyOf(%v) mismatch (-want +got):\n%s", tc.p, diff)
			}
		})
	}
}

func TestReadModifyWriteOf(t *testing.T) {
	m := bigtable.NewReadModifyWrite()
	m.Increment("A", "n", -2)
	m.AppendValue("A", "s", []byte("x"))
	got, err := spec.ReadModifyWriteOf(m)
	if err != nil {
		t.Fatal(err)
	}
	want := &spec.ReadModifyWrite{Rules: []spec.RMWRule{
		{Family: "A", Qualifier: "n", Increment: true, Delta: -2},
		{Family: "A", Qualifier: "s", Append: []byte("x")},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadModifyWriteOf mismatch (-want +got):\n%s", diff)
	}
	if got, err := spec.ReadModifyWriteOf((*bigtable.ReadModifyWrite)(nil)); got != nil || err != nil {
		t.Errorf("ReadModifyWriteOf(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second Register did not panic")
		}
	}()
	spec.Register(spec.Hooks{})
}
