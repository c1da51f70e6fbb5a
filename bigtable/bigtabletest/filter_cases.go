package bigtabletest

import (
	"errors"
	"slices"
	"testing"

	"github.com/webtable/webtable/bigtable"
)

// filterRow is the row the filter cases read.
var filterRow = []string{"A:a@1000=x", "A:a@2000=y", "A:b@1000=zz", "A:c@3000=w", "B:a@1000=v"}

// filterAll is filterRow as a plain read returns it.
var filterAll = []string{"A:a@2000=y", "A:a@1000=x", "A:b@1000=zz", "A:c@3000=w", "B:a@1000=v"}

var filterCases = []conformanceCase{
	{"filter/table", func(t *testing.T, c *env) {
		c.set(t, "r", filterRow...)
		fam := bigtable.FamilyFilter
		for _, tc := range []struct {
			name string
			f    bigtable.Filter
			want []string
		}{
			{"FamilyFilter(B)", fam("B"), []string{"B:a@1000=v"}},
			{"FamilyFilter(.)", fam("."), filterAll},
			{"FamilyFilter(A|B) whole name", fam("A|Bx"), filterAll[:4]},
			{"ColumnFilter(a)", bigtable.ColumnFilter("a"), []string{"A:a@2000=y", "A:a@1000=x", "B:a@1000=v"}},
			{"ColumnFilter([bc])", bigtable.ColumnFilter("[bc]"), []string{"A:b@1000=zz", "A:c@3000=w"}},
			{"ValueFilter(y|v)", bigtable.ValueFilter("y|v"), []string{"A:a@2000=y", "B:a@1000=v"}},
			{"ValueFilter(z) whole value", bigtable.ValueFilter("z"), nil},
			{"ValueFilter(z+)", bigtable.ValueFilter("z+"), []string{"A:b@1000=zz"}},
			{"ValueRangeFilter[w,y)", bigtable.ValueRangeFilter([]byte("w"), []byte("y")), []string{"A:a@1000=x", "A:c@3000=w"}},
			{"ValueRangeFilter[,w)", bigtable.ValueRangeFilter(nil, []byte("w")), []string{"B:a@1000=v"}},
			{"ValueRangeFilter[y,)", bigtable.ValueRangeFilter([]byte("y"), nil), []string{"A:a@2000=y", "A:b@1000=zz"}},
			{"ColumnRangeFilter(A,b,c)", bigtable.ColumnRangeFilter("A", "b", "c"), []string{"A:b@1000=zz"}},
			{"ColumnRangeFilter(A,,c)", bigtable.ColumnRangeFilter("A", "", "c"), filterAll[:3]},
			{"ColumnRangeFilter(B,,)", bigtable.ColumnRangeFilter("B", "", ""), []string{"B:a@1000=v"}},
			{"LatestNFilter(1)", bigtable.LatestNFilter(1), []string{"A:a@2000=y", "A:b@1000=zz", "A:c@3000=w", "B:a@1000=v"}},
			{"StripValueFilter", bigtable.StripValueFilter(), []string{"A:a@2000=", "A:a@1000=", "A:b@1000=", "A:c@3000=", "B:a@1000="}},
			{"TimestampRangeFilterMicros[1000,2000)", bigtable.TimestampRangeFilterMicros(1000, 2000),
				[]string{"A:a@1000=x", "A:b@1000=zz", "B:a@1000=v"}},
			{"TimestampRangeFilterMicros[2000,)", bigtable.TimestampRangeFilterMicros(2000, 0), []string{"A:a@2000=y", "A:c@3000=w"}},
			{"CellsPerRowLimitFilter(2) of A", bigtable.ChainFilters(fam("A"), bigtable.CellsPerRowLimitFilter(2)), filterAll[:2]},
			{"CellsPerRowOffsetFilter(3) of A", bigtable.ChainFilters(fam("A"), bigtable.CellsPerRowOffsetFilter(3)), filterAll[3:4]},
			{"ChainFilters", bigtable.ChainFilters(fam("A"), bigtable.ColumnFilter("a"), bigtable.LatestNFilter(1)), []string{"A:a@2000=y"}},
			{"InterleaveFilters", bigtable.InterleaveFilters(fam("B"), bigtable.ColumnFilter("c")), []string{"A:c@3000=w", "B:a@1000=v"}},
			{"ConditionFilter true", bigtable.ConditionFilter(bigtable.ValueFilter("w"), fam("B"), fam("A")), []string{"B:a@1000=v"}},
			{"ConditionFilter false", bigtable.ConditionFilter(bigtable.ValueFilter("nothing"), fam("B"), fam("A")), filterAll[:4]},
			{"ConditionFilter nil branch", bigtable.ConditionFilter(bigtable.ValueFilter("w"), nil, fam("A")), nil},
			{"RowKeyFilter(r)", bigtable.RowKeyFilter("r"), filterAll},
			{"RowKeyFilter(.) whole key", bigtable.RowKeyFilter(".x"), nil},
			{"PassAllFilter", bigtable.PassAllFilter(), filterAll},
			{"BlockAllFilter", bigtable.BlockAllFilter(), nil},
		} {
			check(t, tc.name, c.read(t, "r", bigtable.RowFilter(tc.f)), tc.want)
		}
	}},
	{"filter/row filters chain", func(t *testing.T, c *env) {
		c.set(t, "r", filterRow...)
		got := c.read(t, "r", bigtable.RowFilter(bigtable.FamilyFilter("A")), bigtable.RowFilter(bigtable.LatestNFilter(1)))
		check(t, "two RowFilter options", got, []string{"A:a@2000=y", "A:b@1000=zz", "A:c@3000=w"})
	}},
	{"filter/row key over rows", func(t *testing.T, c *env) {
		c.fillRows(t)
		check(t, "RowKeyFilter(a.)", c.keys(t, bigtable.InfiniteRange(""), bigtable.RowFilter(bigtable.RowKeyFilter("a."))),
			[]string{"a\x00", "ab", "a\xff"}) // "." matches any byte but '\n'
	}},
	{"filter/row sample", func(t *testing.T, c *env) {
		c.fillRows(t)
		got := c.keys(t, bigtable.InfiniteRange(""), bigtable.RowFilter(bigtable.RowSampleFilter(0.5)))
		for _, k := range got {
			if !slices.Contains(sortedKeys, k) {
				t.Errorf("RowSampleFilter returned row %q, not in the table", k)
			}
		}
		if !slices.IsSorted(got) {
			t.Errorf("RowSampleFilter rows %q not in key order", got)
		}
	}},
	{"filter/invalid", func(t *testing.T, c *env) {
		c.set(t, "r", filterRow...)
		for _, tc := range []struct {
			name string
			f    bigtable.Filter
		}{
			{"LatestNFilter(0)", bigtable.LatestNFilter(0)},
			{"CellsPerRowLimitFilter(0)", bigtable.CellsPerRowLimitFilter(0)},
			{"CellsPerRowOffsetFilter(-1)", bigtable.CellsPerRowOffsetFilter(-1)},
			{"RowKeyFilter(empty)", bigtable.RowKeyFilter("")},
			{"RowSampleFilter(1.5)", bigtable.RowSampleFilter(1.5)},
			{"ConditionFilter(nil predicate)", bigtable.ConditionFilter(nil, nil, nil)},
			{"ChainFilters(nil, nil)", bigtable.ChainFilters(nil, nil)},
			{"FamilyFilter(bad pattern)", bigtable.FamilyFilter("(")},
		} {
			_, err := c.tbl.ReadRow(c.ctx, "r", bigtable.RowFilter(tc.f))
			if !errors.Is(err, bigtable.ErrInvalidFilter) {
				t.Errorf("%s: ReadRow = %v, want ErrInvalidFilter", tc.name, err)
			}
		}
	}},
}
