package wire

import (
	"slices"
	"strings"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

// Bound is the kind of one end of a Range: spec's, as bigtable/cloud
// reads it.
type Bound = spec.Bound

// The bound kinds.
const (
	Unbounded = spec.Unbounded // no limit on that side
	Open      = spec.Open      // the key itself is excluded
	Closed    = spec.Closed    // the key itself is included
)

// Range is one range of row keys of a request's RowSet, kept as data (a
// spec.RowRange) so a read that stops after a row can go on with what is
// left (After).
type Range spec.RowRange

// RowSet translates a request's RowSet into ranges: each listed key is the
// closed range [key, key]; an absent or empty set is the whole table. Empty
// listed keys are refused, as Cloud Bigtable does.
func RowSet(rs *btpb.RowSet) ([]Range, error) {
	if rs == nil || (len(rs.RowKeys) == 0 && len(rs.RowRanges) == 0) {
		return []Range{{}}, nil
	}
	out := make([]Range, 0, len(rs.RowKeys)+len(rs.RowRanges))
	for i, k := range rs.RowKeys {
		if len(k) == 0 {
			return nil, invalidf("rows.row_keys[%d] is empty", i)
		}
		out = append(out, Range{Closed, string(k), Closed, string(k)})
	}
	for _, r := range rs.RowRanges {
		var out1 Range
		switch b := r.GetStartKey().(type) {
		case *btpb.RowRange_StartKeyClosed:
			out1.StartBound, out1.Start = Closed, string(b.StartKeyClosed)
		case *btpb.RowRange_StartKeyOpen:
			out1.StartBound, out1.Start = Open, string(b.StartKeyOpen)
		}
		switch b := r.GetEndKey().(type) {
		case *btpb.RowRange_EndKeyClosed:
			out1.EndBound, out1.End = Closed, string(b.EndKeyClosed)
		case *btpb.RowRange_EndKeyOpen:
			out1.EndBound, out1.End = Open, string(b.EndKeyOpen)
		}
		// An empty key is no bound: Cloud Bigtable's "" start is the first
		// row and its "" end the end of the table.
		if out1.Start == "" {
			out1.StartBound = Unbounded
		}
		if out1.End == "" {
			out1.EndBound = Unbounded
		}
		out = append(out, out1)
	}
	return out, nil
}

// After returns what is left of the ranges once every row up to and
// including key has been read.
func After(rs []Range, key string) []Range {
	out := rs[:0:0]
	for _, r := range rs {
		switch r.EndBound {
		case Closed:
			if r.End <= key {
				continue
			}
		case Open:
			if r.End <= key+"\x00" {
				continue
			}
		}
		if r.StartBound == Unbounded || r.Start < key || (r.Start == key && r.StartBound == Closed) {
			r.StartBound, r.Start = Open, key
		}
		out = append(out, r)
	}
	return out
}

// BigtableRowSet gives the ranges as a bigtable.RowSet (which reads their
// union in key order, each row once).
func BigtableRowSet(rs []Range) bigtable.RowSet {
	out := make(bigtable.RowRangeList, len(rs))
	for i, r := range rs {
		out[i] = r.rowRange()
	}
	return out
}

func (r Range) rowRange() bigtable.RowRange {
	switch {
	case r.StartBound == Unbounded && r.EndBound == Unbounded:
		return bigtable.InfiniteRange("")
	case r.StartBound == Unbounded && r.EndBound == Closed:
		return bigtable.InfiniteReverseRange(r.End)
	case r.StartBound == Unbounded: // end open
		return bigtable.NewRange("", r.End)
	case r.StartBound == Closed && r.EndBound == Closed:
		return bigtable.NewClosedRange(r.Start, r.End)
	case r.StartBound == Closed: // end open or unbounded
		return bigtable.NewRange(r.Start, r.End)
	case r.EndBound == Closed: // start open
		return bigtable.NewOpenClosedRange(r.Start, r.End)
	}
	return bigtable.NewOpenRange(r.Start, r.End) // end open or unbounded ("")
}

// Normalize returns the union of rs as ranges sorted by key and disjoint,
// none touching the next, each with a closed or unbounded start and an
// open or unbounded end. It reuses rs and costs O(N log N) for N ranges.
//
// NB: row keys are byte strings, so an open start s is the closed start
// s+"\x00" and a closed end e the open end e+"\x00".
func Normalize(rs []Range) []Range {
	for i := range rs {
		r := &rs[i]
		if r.StartBound == Open {
			r.StartBound, r.Start = Closed, r.Start+"\x00"
		}
		if r.EndBound == Closed {
			r.EndBound, r.End = Open, r.End+"\x00"
		}
		if r.StartBound == Unbounded {
			r.Start = ""
		}
		if r.EndBound == Unbounded {
			r.End = ""
		}
	}
	// Drop empty ranges, then sort by start ("" is the first key).
	out := rs[:0]
	for _, r := range rs {
		if r.EndBound == Unbounded || r.Start < r.End {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Range) int { return strings.Compare(a.Start, b.Start) })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if last.EndBound == Unbounded || r.Start <= last.End {
				if last.EndBound != Unbounded && (r.EndBound == Unbounded || r.End > last.End) {
					last.EndBound, last.End = r.EndBound, r.End
				}
				continue
			}
		}
		merged = append(merged, r)
	}
	return merged
}

// AfterSorted is After for ranges returned by Normalize, and returns them
// in the same form: it drops the ranges wholly at or before key and starts
// the next just after key, in O(log N) for N ranges plus the ranges
// dropped. It may change rs[i] and returns a subslice of rs.
func AfterSorted(rs []Range, key string) []Range {
	next := key + "\x00" // the first key after key
	// i: the first range that starts after key; the one before it is the
	// only one that may hold keys after key.
	i, _ := slices.BinarySearchFunc(rs, next, func(r Range, k string) int { return strings.Compare(r.Start, k) })
	if i > 0 {
		if r := &rs[i-1]; r.EndBound == Unbounded || r.End > next {
			r.StartBound, r.Start = Closed, next
			return rs[i-1:]
		}
	}
	return rs[i:]
}
