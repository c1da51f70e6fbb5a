package bigtabletest

import (
	"testing"

	"github.com/webtable/webtable/bigtable"
)

// rowKeys are written in this (scrambled) order by fillRows; they include
// prefixes of each other and the bytes 0x00 and 0xFF.
var rowKeys = []string{"b", "a\xff", "ab", "a", "c", "a\x00", "ba", "\xff"}

// sortedKeys is rowKeys in byte order.
var sortedKeys = []string{"a", "a\x00", "ab", "a\xff", "b", "ba", "c", "\xff"}

func (c *env) fillRows(t *testing.T) {
	t.Helper()
	for _, k := range rowKeys {
		c.set(t, k, "A:q@1000="+k)
	}
}

var readCases = []conformanceCase{
	{"read/missing row", func(t *testing.T, c *env) {
		r, err := c.tbl.ReadRow(c.ctx, "absent")
		if r != nil || err != nil {
			t.Errorf("ReadRow(absent) = %v, %v; want an empty Row and no error", r, err)
		}
		c.set(t, "r", "A:q@1000=v")
		r, err = c.tbl.ReadRow(c.ctx, "r", bigtable.RowFilter(bigtable.FamilyFilter("B")))
		if r != nil || err != nil {
			t.Errorf("ReadRow(r) with a filter passing nothing = %v, %v; want an empty Row and no error", r, err)
		}
		r, err = c.tbl.ReadRow(c.ctx, "")
		if r != nil || err != nil {
			t.Errorf("ReadRow(\"\") = %v, %v; want an empty Row and no error", r, err)
		}
	}},
	{"read/rows in key order", func(t *testing.T, c *env) {
		c.fillRows(t)
		check(t, "all rows", c.keys(t, bigtable.InfiniteRange("")), sortedKeys)
		var items []string
		err := c.tbl.ReadRows(c.ctx, bigtable.PrefixRange("a"), func(r bigtable.Row) bool {
			items = append(items, cells(r)...)
			return true
		})
		mustDo(t, "ReadRows", err)
		check(t, "cells of prefix a", items, []string{"A:q@1000=a", "A:q@1000=a\x00", "A:q@1000=ab", "A:q@1000=a\xff"})
	}},
	{"read/row sets", func(t *testing.T, c *env) {
		c.fillRows(t)
		for _, tc := range []struct {
			name string
			rs   bigtable.RowSet
			want []string
		}{
			{"SingleRow", bigtable.SingleRow("ab"), []string{"ab"}},
			{"SingleRow absent", bigtable.SingleRow("zz"), nil},
			{"RowList", bigtable.RowList{"c", "a", "zz", "b"}, []string{"a", "b", "c"}},
			{"RowList empty", bigtable.RowList{}, nil},
			{"RowList duplicates and empty key", bigtable.RowList{"b", "", "b", "a"}, []string{"a", "b"}},
			{"NewRange", bigtable.NewRange("a\xff", "ba"), []string{"a\xff", "b"}},
			{"NewRange unbounded end", bigtable.NewRange("ba", ""), []string{"ba", "c", "\xff"}},
			{"NewClosedOpenRange", bigtable.NewClosedOpenRange("ab", "c"), []string{"ab", "a\xff", "b", "ba"}},
			{"NewOpenClosedRange", bigtable.NewOpenClosedRange("ab", "c"), []string{"a\xff", "b", "ba", "c"}},
			{"NewOpenRange", bigtable.NewOpenRange("ab", "c"), []string{"a\xff", "b", "ba"}},
			{"NewClosedRange", bigtable.NewClosedRange("ab", "c"), []string{"ab", "a\xff", "b", "ba", "c"}},
			{"NewRange empty", bigtable.NewRange("b", "b"), nil},
			{"NewRange inverted", bigtable.NewRange("c", "a"), nil},
			{"PrefixRange", bigtable.PrefixRange("b"), []string{"b", "ba"}},
			{"PrefixRange 0xFF", bigtable.PrefixRange("\xff"), []string{"\xff"}},
			{"InfiniteRange", bigtable.InfiniteRange("b"), []string{"b", "ba", "c", "\xff"}},
			{"InfiniteReverseRange", bigtable.InfiniteReverseRange("a\xff"), []string{"a", "a\x00", "ab", "a\xff"}},
			{"RowRangeList", bigtable.RowRangeList{bigtable.NewRange("c", ""), bigtable.PrefixRange("a\x00"), bigtable.NewRange("b", "c")},
				[]string{"a\x00", "b", "ba", "c", "\xff"}},
			{"RowRangeList overlapping", bigtable.RowRangeList{bigtable.PrefixRange("a"), bigtable.NewRange("a\x00", "b"), bigtable.NewClosedRange("ab", "ab")},
				[]string{"a", "a\x00", "ab", "a\xff"}},
			{"RowRangeList with an empty range", bigtable.RowRangeList{bigtable.NewRange("b", "b"), bigtable.NewClosedRange("c", "c")},
				[]string{"c"}},
		} {
			check(t, tc.name, c.keys(t, tc.rs), tc.want)
		}
	}},
	{"read/limit rows", func(t *testing.T, c *env) {
		c.fillRows(t)
		check(t, "LimitRows(2)", c.keys(t, bigtable.InfiniteRange(""), bigtable.LimitRows(2)), sortedKeys[:2])
		check(t, "LimitRows(0)", c.keys(t, bigtable.InfiniteRange(""), bigtable.LimitRows(0)), nil)
		check(t, "LimitRows(5) then LimitRows(1)", c.keys(t, bigtable.InfiniteRange(""), bigtable.LimitRows(5), bigtable.LimitRows(1)), sortedKeys[:1])
		if err := c.tbl.ReadRows(c.ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool { return true }, bigtable.LimitRows(-1)); err == nil {
			t.Error("ReadRows with LimitRows(-1) succeeded, want an error")
		}
		check(t, "LimitRows(100)", c.keys(t, bigtable.InfiniteRange(""), bigtable.LimitRows(100)), sortedKeys)
		// Rows the filter empties do not count against the limit.
		check(t, "LimitRows(2) after a row key filter", c.keys(t, bigtable.InfiniteRange(""),
			bigtable.RowFilter(bigtable.RowKeyFilter("b.*")), bigtable.LimitRows(2)), []string{"b", "ba"})
	}},
	{"read/stop early", func(t *testing.T, c *env) {
		c.fillRows(t)
		var got []string
		err := c.tbl.ReadRows(c.ctx, bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
			got = append(got, r.Key())
			return len(got) < 3
		})
		if err != nil {
			t.Errorf("ReadRows stopped by its callback = %v, want no error", err)
		}
		check(t, "rows seen", got, sortedKeys[:3])
	}},
}
