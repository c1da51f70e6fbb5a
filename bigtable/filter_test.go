package bigtable

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// filterFixture writes the rows the filter tests read.
//
//	r1     A:a @3 v1a3, @2 v1a2, @1 v1a1; A:b @2 xyz; B:\x00 @1 \xff; B:c @5 hello
//	r2     A:a @10 m; B:d @7 (empty)
//	r3\x00 B:c @4 bye
func filterFixture(t *testing.T) *Table {
	db := openTestDB(t)
	tbl := db.mustTable("t", "A", "B")
	m := NewMutation()
	m.Set("A", "a", 3, []byte("v1a3"))
	m.Set("A", "a", 2, []byte("v1a2"))
	m.Set("A", "a", 1, []byte("v1a1"))
	m.Set("A", "b", 2, []byte("xyz"))
	m.Set("B", "\x00", 1, []byte("\xff"))
	m.Set("B", "c", 5, []byte("hello"))
	mustApply(t, tbl, "r1", m)
	m = NewMutation()
	m.Set("A", "a", 10, []byte("m"))
	m.Set("B", "d", 7, nil)
	mustApply(t, tbl, "r2", m)
	mustApply(t, tbl, "r3\x00", set("B", "c", 4, "bye"))
	return tbl
}

var allFixtureCells = []string{
	"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r1 A:b@2=xyz",
	"r1 B:\x00@1=\xff", "r1 B:c@5=hello",
	"r2 A:a@10=m", "r2 B:d@7=",
	"r3\x00 B:c@4=bye",
}

func TestFilters(t *testing.T) {
	tbl := filterFixture(t)
	for _, tc := range []struct {
		name   string
		filter Filter
		want   []string
	}{
		{"none", nil, allFixtureCells},
		{"PassAll", PassAllFilter(), allFixtureCells},
		{"BlockAll", BlockAllFilter(), nil},
		{"Family A", FamilyFilter("A"), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r1 A:b@2=xyz", "r2 A:a@10=m"}},
		{"Family alternation", FamilyFilter("A|B"), allFixtureCells},
		{"Family full match only", FamilyFilter("A."), nil},
		{"Family case-sensitive", FamilyFilter("a"), nil},
		{"Column a", ColumnFilter("a"), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r2 A:a@10=m"}},
		{"Column NUL byte", ColumnFilter("\x00"), []string{"r1 B:\x00@1=\xff"}},
		{"Column dot matches any byte", ColumnFilter("."), allFixtureCells},
		{"Column class", ColumnFilter("[b-c]"), []string{"r1 A:b@2=xyz", "r1 B:c@5=hello", "r3\x00 B:c@4=bye"}},
		{"Value prefix", ValueFilter("v1.*"), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1"}},
		{"Value raw byte", ValueFilter("\xff"), []string{"r1 B:\x00@1=\xff"}},
		{"Value raw byte escape", ValueFilter(`\xff`), []string{"r1 B:\x00@1=\xff"}},
		{"Value empty", ValueFilter(""), []string{"r2 B:d@7="}},
		{"Value full match only", ValueFilter("v1"), nil},
		{"RowKey", RowKeyFilter("r[12]"), allFixtureCells[:8]},
		{"RowKey dot matches NUL", RowKeyFilter("r3."), []string{"r3\x00 B:c@4=bye"}},
		{"RowKey full match only", RowKeyFilter("r"), nil},
		{"LatestN 1", LatestNFilter(1), []string{"r1 A:a@3=v1a3", "r1 A:b@2=xyz", "r1 B:\x00@1=\xff", "r1 B:c@5=hello", "r2 A:a@10=m", "r2 B:d@7=", "r3\x00 B:c@4=bye"}},
		{"LatestN 2", LatestNFilter(2), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:b@2=xyz", "r1 B:\x00@1=\xff", "r1 B:c@5=hello", "r2 A:a@10=m", "r2 B:d@7=", "r3\x00 B:c@4=bye"}},
		{"StripValue", StripValueFilter(), []string{"r1 A:a@3=", "r1 A:a@2=", "r1 A:a@1=", "r1 A:b@2=", "r1 B:\x00@1=", "r1 B:c@5=", "r2 A:a@10=", "r2 B:d@7=", "r3\x00 B:c@4="}},
		{"TimestampRange [2,5)", TimestampRangeFilterMicros(2, 5), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:b@2=xyz", "r3\x00 B:c@4=bye"}},
		{"TimestampRange [5,inf)", TimestampRangeFilterMicros(5, 0), []string{"r1 B:c@5=hello", "r2 A:a@10=m", "r2 B:d@7="}},
		{"TimestampRange [0,2)", TimestampRangeFilterMicros(0, 2), []string{"r1 A:a@1=v1a1", "r1 B:\x00@1=\xff"}},
		{"ColumnRange A [b,inf)", ColumnRangeFilter("A", "b", ""), []string{"r1 A:b@2=xyz"}},
		{"ColumnRange B [,c)", ColumnRangeFilter("B", "", "c"), []string{"r1 B:\x00@1=\xff"}},
		{"ColumnRange B [c,d)", ColumnRangeFilter("B", "c", "d"), []string{"r1 B:c@5=hello", "r3\x00 B:c@4=bye"}},
		{"ValueRange [m,w)", ValueRangeFilter([]byte("m"), []byte("w")), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r2 A:a@10=m"}},
		{"ValueRange [x,inf)", ValueRangeFilter([]byte("x"), nil), []string{"r1 A:b@2=xyz", "r1 B:\x00@1=\xff"}},
		{"CellsPerRowLimit 2", CellsPerRowLimitFilter(2), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r2 A:a@10=m", "r2 B:d@7=", "r3\x00 B:c@4=bye"}},
		{"CellsPerRowOffset 4", CellsPerRowOffsetFilter(4), []string{"r1 B:\x00@1=\xff", "r1 B:c@5=hello"}},
		{"CellsPerRowOffset 0", CellsPerRowOffsetFilter(0), allFixtureCells},
		{"Chain family latest", ChainFilters(FamilyFilter("A"), LatestNFilter(1)), []string{"r1 A:a@3=v1a3", "r1 A:b@2=xyz", "r2 A:a@10=m"}},
		{"Chain value then latest", ChainFilters(ValueFilter("v1a[12]"), LatestNFilter(1)), []string{"r1 A:a@2=v1a2"}},
		{"Chain latest then value", ChainFilters(LatestNFilter(1), ValueFilter("v1a[12]")), nil},
		{"Chain offset then limit", ChainFilters(CellsPerRowOffsetFilter(1), CellsPerRowLimitFilter(2)), []string{"r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r2 B:d@7="}},
		{"Chain strip then value", ChainFilters(StripValueFilter(), ValueFilter("")), []string{"r1 A:a@3=", "r1 A:a@2=", "r1 A:a@1=", "r1 A:b@2=", "r1 B:\x00@1=", "r1 B:c@5=", "r2 A:a@10=", "r2 B:d@7=", "r3\x00 B:c@4="}},
		{"Interleave family and column", InterleaveFilters(FamilyFilter("B"), ColumnFilter("a")), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r1 B:\x00@1=\xff", "r1 B:c@5=hello", "r2 A:a@10=m", "r2 B:d@7=", "r3\x00 B:c@4=bye"}},
		{"Interleave duplicates in sub order", InterleaveFilters(ColumnFilter("b"), ChainFilters(ColumnFilter("b"), StripValueFilter())), []string{"r1 A:b@2=xyz", "r1 A:b@2="}},
		{"Interleave merges by column then time", InterleaveFilters(TimestampRangeFilterMicros(1, 2), TimestampRangeFilterMicros(3, 4)), []string{"r1 A:a@3=v1a3", "r1 A:a@1=v1a1", "r1 B:\x00@1=\xff"}},
		{"Condition true and false branches", ConditionFilter(ValueFilter("hello"), FamilyFilter("A"), FamilyFilter("B")), []string{"r1 A:a@3=v1a3", "r1 A:a@2=v1a2", "r1 A:a@1=v1a1", "r1 A:b@2=xyz", "r2 B:d@7=", "r3\x00 B:c@4=bye"}},
		{"Condition nil branches", ConditionFilter(ColumnFilter("zz"), PassAllFilter(), nil), nil},
		{"Condition inside chain", ChainFilters(FamilyFilter("A"), ConditionFilter(ValueFilter("m"), StripValueFilter(), LatestNFilter(1))), []string{"r1 A:a@3=v1a3", "r1 A:b@2=xyz", "r2 A:a@10="}},
		{"Condition inside interleave", InterleaveFilters(ConditionFilter(RowKeyFilter("r2"), PassAllFilter(), nil), ColumnFilter("c")), []string{"r1 B:c@5=hello", "r2 A:a@10=m", "r2 B:d@7=", "r3\x00 B:c@4=bye"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []ReadOption
			if tc.filter != nil {
				opts = append(opts, RowFilter(tc.filter))
			}
			got := cellStrings(readAll(t, tbl, InfiniteRange(""), opts...))
			if !slices.Equal(got, tc.want) {
				t.Errorf("ReadRows(%v) =\n%q\nwant\n%q", tc.filter, got, tc.want)
			}
		})
	}
}

func TestRowFilterOptionsChain(t *testing.T) {
	tbl := filterFixture(t)
	got := cellStrings(readAll(t, tbl, InfiniteRange(""), RowFilter(FamilyFilter("A")), RowFilter(LatestNFilter(1))))
	want := []string{"r1 A:a@3=v1a3", "r1 A:b@2=xyz", "r2 A:a@10=m"}
	if !slices.Equal(got, want) {
		t.Errorf("two RowFilter options = %q, want %q", got, want)
	}
}

func TestRowSampleFilter(t *testing.T) {
	tbl := filterFixture(t)
	n := 0
	for range 50 {
		n += len(readAll(t, tbl, InfiniteRange(""), RowFilter(RowSampleFilter(0.5))))
	}
	if n == 0 || n == 150 {
		t.Errorf("RowSampleFilter(0.5) passed %d of 150 rows; want some but not all", n)
	}
}

func TestFilterErrors(t *testing.T) {
	tbl := filterFixture(t)
	for _, f := range []Filter{
		LatestNFilter(0), CellsPerRowLimitFilter(0), CellsPerRowOffsetFilter(-1),
		RowKeyFilter(""), ColumnFilter("("), FamilyFilter("[a"), ValueFilter("*"),
		RowSampleFilter(0), RowSampleFilter(1), ConditionFilter(nil, nil, nil),
		ChainFilters(PassAllFilter(), LatestNFilter(-1)), InterleaveFilters(PassAllFilter(), nil),
		// Cloud Bigtable's rule: "Chain must contain at least two RowFilters".
		ChainFilters(), ChainFilters(FamilyFilter("B")), InterleaveFilters(), InterleaveFilters(FamilyFilter("B")),
		ConditionFilter(PassAllFilter(), ChainFilters(FamilyFilter("B")), nil),
	} {
		err := tbl.ReadRows(context.Background(), InfiniteRange(""), func(Row) bool { return true }, RowFilter(f))
		if !errors.Is(err, ErrInvalidFilter) {
			t.Errorf("ReadRows with %v = %v, want ErrInvalidFilter", f, err)
		}
	}
}

func TestFilterStrings(t *testing.T) {
	for _, tc := range []struct {
		f    Filter
		want string
	}{
		{ChainFilters(FamilyFilter("A"), LatestNFilter(2)), "(col(A:) | col(*,2))"},
		{InterleaveFilters(ColumnFilter("q"), ValueFilter("v")), "(col(.*:q) + value_match(v))"},
		{RowKeyFilter("com.*"), "row(com.*)"},
		{StripValueFilter(), "strip_value()"},
		{TimestampRangeFilterMicros(1, 2), "timestamp_range(1,2)"},
		{ColumnRangeFilter("f", "a", "b"), "columnRangeFilter(f,a,b)"},
		{ValueRangeFilter([]byte("a"), []byte("b")), "valueRangeFilter(a,b)"},
		{ConditionFilter(PassAllFilter(), BlockAllFilter(), nil), "conditionFilter(passAllFilter(),blockAllFilter(),<nil>)"},
		{CellsPerRowOffsetFilter(3), "cells_per_row_offset(3)"},
		{CellsPerRowLimitFilter(3), "cells_per_row_limit(3)"},
		{RowSampleFilter(0.25), "filter(0.250000)"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestLatin1(t *testing.T) {
	for _, tc := range []struct{ pattern, in string }{
		{"é", "é"},        // UTF-8 pattern matches its bytes
		{"..", "é"},       // two bytes, two characters
		{`\xc3\xa9`, "é"}, // escapes name bytes
		{"[\x80-\xff]+", "\x80\xfe\xff"},
	} {
		re, err := compileByteRegexp(tc.pattern)
		if err != nil {
			t.Fatalf("compileByteRegexp(%q) = %v", tc.pattern, err)
		}
		if !re.matchString(tc.in) || !re.match([]byte(tc.in)) {
			t.Errorf("%q does not match %q", tc.pattern, tc.in)
		}
	}
	re, _ := compileByteRegexp(".")
	if re.matchString("é") {
		t.Errorf(`"." matches the two bytes of "é"`)
	}
	if got := latin1("a\xffb"); got != "aÿb" || !strings.HasPrefix(latin1("abc"), "abc") {
		t.Errorf("latin1 = %q", got)
	}
}

// TestInterleaveCopiesAreIndependent: two copies of one cell do not share
// their value's memory.
func TestInterleaveCopiesAreIndependent(t *testing.T) {
	tbl := filterFixture(t)
	for _, f := range []Filter{
		InterleaveFilters(ColumnFilter("b"), ColumnFilter("b")),
		ConditionFilter(PassAllFilter(), InterleaveFilters(ColumnFilter("b"), ColumnFilter("b")), nil),
	} {
		rows := readAll(t, tbl, SingleRow("r1"), RowFilter(f))
		items := rows[0]["A"]
		if len(items) != 2 {
			t.Fatalf("%v: got %q", f, cellStrings(rows))
		}
		items[0].Value[0] = 'X'
		if string(items[1].Value) != "xyz" {
			t.Errorf("%v: changing one copy changed the other to %q", f, items[1].Value)
		}
	}
}

// TestLiteralPatterns: patterns that match one byte string take the
// comparison path, and it agrees with the regexp.
func TestLiteralPatterns(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		lit     string
		isLit   bool
	}{
		{"anchor", "anchor", true},
		{"", "", true},
		{`a\.b`, "a.b", true},
		{`\xff\x00`, "\xff\x00", true},
		{"a.b", "", false},
		{"(?i)abc", "", false},
		{"abc|abd", "", false},
		{"ab*", "", false},
		{`\x{100}`, "", false},
	} {
		r, err := compileByteRegexp(tc.pattern)
		if err != nil {
			t.Fatalf("compile %q: %v", tc.pattern, err)
		}
		if r.isLit != tc.isLit || r.lit != tc.lit {
			t.Errorf("%q: literal %q, %v; want %q, %v", tc.pattern, r.lit, r.isLit, tc.lit, tc.isLit)
		}
		for _, s := range []string{tc.lit, tc.lit + "x", "x" + tc.lit, "", "anchor", "a.b", "A.B", "\xff\x00"} {
			if got, want := r.matchString(s), r.re.MatchString(latin1(s)); got != want {
				t.Errorf("%q matching %q = %v, the regexp says %v", tc.pattern, s, got, want)
			}
		}
	}
}

// FuzzLiteralPattern: the comparison path agrees with the regexp on any
// pattern and input, as strings and as bytes.
func FuzzLiteralPattern(f *testing.F) {
	f.Add("anchor", "anchor")
	f.Add(`a\.b`, "a.b")
	f.Add(`\xff`, "\xff")
	f.Add("(?i)a", "A")
	f.Add("a{2}", "aa")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		r, err := compileByteRegexp(pattern)
		if err != nil {
			return
		}
		want := r.re.MatchString(latin1(s))
		if got := r.matchString(s); got != want {
			t.Fatalf("%q matching %q = %v, the regexp says %v (literal %q %v)", pattern, s, got, want, r.lit, r.isLit)
		}
		if got := r.match([]byte(s)); got != want {
			t.Fatalf("%q matching bytes %q = %v, the regexp says %v", pattern, s, got, want)
		}
		if r.isLit && !r.re.MatchString(latin1(r.lit)) {
			t.Fatalf("%q: the regexp does not match its own literal %q", pattern, r.lit)
		}
	})
}
