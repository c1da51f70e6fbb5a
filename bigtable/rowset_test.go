package bigtable

import (
	"context"
	"slices"
	"testing"
)

func TestRowSets(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	keys := []string{"\x00", "a", "a\x00", "a\x00b", "ab", "abc", "abd", "b", "b\xff", "\xff", "\xff\xff"}
	for _, k := range keys {
		mustApply(t, tbl, k, set("f", "q", 1, k))
	}
	for _, tc := range []struct {
		name string
		rs   RowSet
		want []string
	}{
		{"SingleRow", SingleRow("a\x00"), []string{"a\x00"}},
		{"SingleRow missing", SingleRow("zz"), nil},
		{"SingleRow empty key", SingleRow(""), nil},
		{"RowList sorted and deduplicated", RowList{"b", "a", "zz", "a", "\x00"}, []string{"\x00", "a", "b"}},
		{"NewRange", NewRange("a", "ab"), []string{"a", "a\x00", "a\x00b"}},
		{"NewRange open end", NewRange("b", ""), []string{"b", "b\xff", "\xff", "\xff\xff"}},
		{"NewRange empty", NewRange("b", "a"), nil},
		{"PrefixRange", PrefixRange("ab"), []string{"ab", "abc", "abd"}},
		{"PrefixRange NUL", PrefixRange("a\x00"), []string{"a\x00", "a\x00b"}},
		{"PrefixRange 0xFF", PrefixRange("\xff"), []string{"\xff", "\xff\xff"}},
		{"PrefixRange empty is all", PrefixRange(""), keys},
		{"InfiniteRange", InfiniteRange("abd"), []string{"abd", "b", "b\xff", "\xff", "\xff\xff"}},
		{"InfiniteRange all", InfiniteRange(""), keys},
		{"InfiniteReverseRange", InfiniteReverseRange("a"), []string{"\x00", "a"}},
		{"NewOpenRange", NewOpenRange("a", "ab"), []string{"a\x00", "a\x00b"}},
		{"NewClosedRange", NewClosedRange("a", "ab"), []string{"a", "a\x00", "a\x00b", "ab"}},
		{"NewOpenClosedRange", NewOpenClosedRange("abc", "b"), []string{"abd", "b"}},
		{"RowRangeList overlapping", RowRangeList{NewRange("abc", "b\xff"), PrefixRange("a"), SingleRowRange("\xff")}, []string{"a", "a\x00", "a\x00b", "ab", "abc", "abd", "b", "\xff"}},
		{"RowRangeList empty", RowRangeList{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range readAll(t, tbl, tc.rs) {
				got = append(got, r.Key())
				if v := string(r["f"][0].Value); v != r.Key() {
					t.Errorf("row %q holds %q", r.Key(), v)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ReadRows(%v) rows = %q, want %q", tc.rs, got, tc.want)
			}
		})
	}
}

// SingleRowRange is the closed range of one row.
func SingleRowRange(row string) RowRange { return NewClosedRange(row, row) }

func TestRowRangeContainsAndString(t *testing.T) {
	for _, tc := range []struct {
		r    RowRange
		row  string
		in   bool
		text string
	}{
		{NewRange("a", "c"), "b", true, `["a","c")`},
		{NewRange("a", "c"), "c", false, `["a","c")`},
		{NewOpenRange("a", "c"), "a", false, `("a","c")`},
		{InfiniteRange("a"), "zzz", true, `["a",∞)`},
		{InfiniteReverseRange("c"), "c", true, `(∞,"c"]`},
		{PrefixRange("ab"), "ab\xff", true, `["ab","ac")`},
	} {
		if got := tc.r.Contains(tc.row); got != tc.in {
			t.Errorf("%v.Contains(%q) = %v, want %v", tc.r, tc.row, got, tc.in)
		}
		if got := tc.r.String(); got != tc.text {
			t.Errorf("String() = %q, want %q", got, tc.text)
		}
	}
	if !InfiniteRange("a").Unbounded() || NewRange("a", "b").Unbounded() {
		t.Errorf("Unbounded wrong")
	}
}

func TestLimitRowsAndStop(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f")
	for _, k := range []string{"a", "b", "c", "d"} {
		mustApply(t, tbl, k, set("f", "q", 1, k))
	}
	if got := len(readAll(t, tbl, InfiniteRange(""), LimitRows(2))); got != 2 {
		t.Errorf("LimitRows(2) read %d rows", got)
	}
	if got := len(readAll(t, tbl, InfiniteRange(""), LimitRows(0))); got != 0 {
		t.Errorf("LimitRows(0) read %d rows, want none as in the Cloud client", got)
	}
	if got := len(readAll(t, tbl, InfiniteRange(""), LimitRows(1), LimitRows(3))); got != 3 {
		t.Errorf("LimitRows(1), LimitRows(3) read %d rows, want 3 (the last counts)", got)
	}
	if err := tbl.ReadRows(ctx, InfiniteRange(""), func(Row) bool { return true }, LimitRows(-1)); err == nil {
		t.Errorf("LimitRows(-1) gave no error")
	}
	// LimitRows counts rows returned, not rows scanned.
	rows := readAll(t, tbl, InfiniteRange(""), LimitRows(1), RowFilter(RowKeyFilter("c|d")))
	if len(rows) != 1 || rows[0].Key() != "c" {
		t.Errorf("LimitRows(1) with filter read %v", cellStrings(rows))
	}
	n := 0
	if err := tbl.ReadRows(ctx, InfiniteRange(""), func(Row) bool { n++; return n < 3 }); err != nil || n != 3 {
		t.Errorf("stopping ReadRows: n = %d, err = %v", n, err)
	}
	var keys []string
	for r, err := range tbl.Rows(ctx, PrefixRange("")) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, r.Key())
		if len(keys) == 2 {
			break
		}
	}
	if !slices.Equal(keys, []string{"a", "b"}) {
		t.Errorf("Rows iterator gave %q", keys)
	}
	for _, err := range db.DB.Open("nope").Rows(ctx, PrefixRange("")) {
		if err == nil {
			t.Errorf("Rows on a missing table gave no error")
		}
	}
	r, err := tbl.ReadRow(ctx, "missing")
	if err != nil || r != nil {
		t.Errorf("ReadRow(missing) = %v, %v; want nil, nil", r, err)
	}
}
