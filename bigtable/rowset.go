package bigtable

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/webtable/webtable/internal/keyspace"
)

// A RowSet is a set of rows to read: a RowList, a RowRange or a
// RowRangeList. The interface is sealed.
type RowSet interface {
	// keyRanges appends the encoded key ranges of the set in table id.
	keyRanges(dst []keyRange, table uint32) []keyRange
}

// keyRange is a half-open range [lo, hi) of Badger keys.
type keyRange struct{ lo, hi []byte }

// RowList is a list of row keys. Rows are read in key order whatever the
// order of the list, and once each.
type RowList []string

func (r RowList) keyRanges(dst []keyRange, table uint32) []keyRange {
	for _, row := range r {
		if row == "" {
			continue // matches no row
		}
		lo := appendRowKey(nil, table, row)
		dst = append(dst, keyRange{lo, rowSuccessor(lo)})
	}
	return dst
}

// SingleRow returns a RowSet holding one row.
func SingleRow(row string) RowSet { return RowList{row} }

type boundType uint8

const (
	unbounded boundType = iota
	openBound
	closedBound
)

// A RowRange is a range of row keys, each end inclusive, exclusive or
// unbounded. Build one with NewRange, PrefixRange, InfiniteRange and the
// other constructors.
type RowRange struct {
	startBound boundType
	start      string
	endBound   boundType
	end        string
}

func newRowRange(sb boundType, start string, eb boundType, end string) RowRange {
	if start == "" {
		sb = unbounded
	}
	if end == "" {
		eb = unbounded
	}
	return RowRange{sb, start, eb, end}
}

// NewRange returns the range [begin, end); an empty end means no upper bound.
func NewRange(begin, end string) RowRange { return newRowRange(closedBound, begin, openBound, end) }

// NewClosedOpenRange returns the range [start, end), like NewRange.
func NewClosedOpenRange(start, end string) RowRange {
	return newRowRange(closedBound, start, openBound, end)
}

// NewOpenClosedRange returns the range (start, end].
func NewOpenClosedRange(start, end string) RowRange {
	return newRowRange(openBound, start, closedBound, end)
}

// NewOpenRange returns the range (start, end).
func NewOpenRange(start, end string) RowRange { return newRowRange(openBound, start, openBound, end) }

// NewClosedRange returns the range [start, end].
func NewClosedRange(start, end string) RowRange {
	return newRowRange(closedBound, start, closedBound, end)
}

// PrefixRange returns the range of rows whose keys start with prefix; the
// empty prefix is every row.
func PrefixRange(prefix string) RowRange {
	return newRowRange(closedBound, prefix, openBound, keyspace.PrefixEnd(prefix))
}

// InfiniteRange returns the range [start, ∞).
func InfiniteRange(start string) RowRange { return newRowRange(closedBound, start, unbounded, "") }

// InfiniteReverseRange returns the range (∞, end].
func InfiniteReverseRange(end string) RowRange {
	return newRowRange(unbounded, "", closedBound, end)
}

// Unbounded reports whether the range lacks a start or an end bound.
func (r RowRange) Unbounded() bool { return r.startBound == unbounded || r.endBound == unbounded }

// Contains reports whether row is in the range.
func (r RowRange) Contains(row string) bool {
	switch r.startBound {
	case openBound:
		if row <= r.start {
			return false
		}
	case closedBound:
		if row < r.start {
			return false
		}
	}
	switch r.endBound {
	case openBound:
		if row >= r.end {
			return false
		}
	case closedBound:
		if row > r.end {
			return false
		}
	}
	return true
}

// String describes the range, for example ["a","b").
func (r RowRange) String() string {
	var s string
	switch r.startBound {
	case openBound:
		s = "(" + strconv.Quote(r.start)
	case closedBound:
		s = "[" + strconv.Quote(r.start)
	default:
		s = "(∞"
	}
	switch r.endBound {
	case openBound:
		s += "," + strconv.Quote(r.end) + ")"
	case closedBound:
		s += "," + strconv.Quote(r.end) + "]"
	default:
		s += ",∞)"
	}
	return s
}

func (r RowRange) keyRanges(dst []keyRange, table uint32) []keyRange {
	var lo, hi []byte
	switch r.startBound {
	case unbounded:
		lo = appendTablePrefix(nil, table)
	case closedBound:
		lo = appendRowKey(nil, table, r.start)
	case openBound:
		lo = rowSuccessor(appendRowKey(nil, table, r.start))
	}
	switch r.endBound {
	case unbounded:
		hi = appendTablePrefix(nil, table+1)
	case openBound:
		hi = appendRowKey(nil, table, r.end)
	case closedBound:
		hi = rowSuccessor(appendRowKey(nil, table, r.end))
	}
	if bytes.Compare(lo, hi) >= 0 {
		return dst
	}
	return append(dst, keyRange{lo, hi})
}

// RowRangeList is the union of some RowRanges.
type RowRangeList []RowRange

func (r RowRangeList) keyRanges(dst []keyRange, table uint32) []keyRange {
	for _, rr := range r {
		dst = rr.keyRanges(dst, table)
	}
	return dst
}

// normalizeRanges sorts ranges and merges those that overlap or touch, so a
// scan visits each row once and in key order.
func normalizeRanges(rs []keyRange) []keyRange {
	if len(rs) <= 1 {
		return rs
	}
	slices.SortFunc(rs, func(a, b keyRange) int { return bytes.Compare(a.lo, b.lo) })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if bytes.Compare(r.lo, last.hi) <= 0 {
			if bytes.Compare(r.hi, last.hi) > 0 {
				last.hi = r.hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}
