package difftest

import (
	"fmt"
	"strconv"
	"strings"
)

// The op model: a small, store-neutral description of every call the
// differential test makes. Each op is translated to our bigtable package
// (ours_test.go) and to the Cloud Bigtable client talking to bttest
// (reference_test.go). Ops print themselves as Go-like calls so that a
// failing sequence can be read (and replayed by hand) by a stranger.

// mutKind names one mutation of a Mutation.
type mutKind int

const (
	mSet        mutKind = iota // Set(fam, qual, ts, value)
	mDelCol                    // DeleteCellsInColumn(fam, qual)
	mDelTsRange                // DeleteTimestampRange(fam, qual, start, end)
	mDelFam                    // DeleteCellsInFamily(fam)
	mDelRow                    // DeleteRow()
)

// mutOp is one mutation inside a Mutation.
type mutOp struct {
	kind       mutKind
	fam, qual  string
	ts         int64 // mSet: the cell timestamp in µs (a multiple of 1000)
	start, end int64 // mDelTsRange: [start, end), 0 = unbounded
	value      string
}

func (m mutOp) String() string {
	switch m.kind {
	case mSet:
		return fmt.Sprintf("Set(%q, %q, %s, %s)", m.fam, m.qual, tsString(m.ts), valueString(m.value))
	case mDelCol:
		return fmt.Sprintf("DeleteCellsInColumn(%q, %q)", m.fam, m.qual)
	case mDelTsRange:
		return fmt.Sprintf("DeleteTimestampRange(%q, %q, %s, %s)", m.fam, m.qual, tsString(m.start), tsString(m.end))
	case mDelFam:
		return fmt.Sprintf("DeleteCellsInFamily(%q)", m.fam)
	case mDelRow:
		return "DeleteRow()"
	}
	return fmt.Sprintf("mutOp(%d)", int(m.kind))
}

func mutsString(ms []mutOp) string {
	if ms == nil {
		return "nil"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return "Mutation{" + strings.Join(parts, "; ") + "}"
}

// filterKind names one filter constructor.
type filterKind int

const (
	fChain filterKind = iota
	fInterleave
	fRowKey
	fFamily
	fColumn
	fValue
	fLatestN
	fStripValue
	fTimestampRange
	fColumnRange
	fCellsPerRowLimit
	fCellsPerRowOffset
	fPassAll
	fBlockAll
	fCondition // subs = [predicate, true filter, false filter]; the last two may be nil
)

// filterSpec is a filter tree.
type filterSpec struct {
	kind       filterKind
	pattern    string // fRowKey, fFamily, fColumn, fValue
	n          int    // fLatestN, fCellsPerRowLimit, fCellsPerRowOffset
	start, end int64  // fTimestampRange, µs, end 0 = unbounded
	fam        string // fColumnRange
	qa, qb     string // fColumnRange: [qa, qb), "" = unbounded
	subs       []*filterSpec
}

func (f *filterSpec) String() string {
	if f == nil {
		return "nil"
	}
	switch f.kind {
	case fChain, fInterleave:
		parts := make([]string, len(f.subs))
		for i, s := range f.subs {
			parts[i] = s.String()
		}
		name := "ChainFilters"
		if f.kind == fInterleave {
			name = "InterleaveFilters"
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	case fRowKey:
		return fmt.Sprintf("RowKeyFilter(%q)", f.pattern)
	case fFamily:
		return fmt.Sprintf("FamilyFilter(%q)", f.pattern)
	case fColumn:
		return fmt.Sprintf("ColumnFilter(%q)", f.pattern)
	case fValue:
		return fmt.Sprintf("ValueFilter(%q)", f.pattern)
	case fLatestN:
		return fmt.Sprintf("LatestNFilter(%d)", f.n)
	case fStripValue:
		return "StripValueFilter()"
	case fTimestampRange:
		return fmt.Sprintf("TimestampRangeFilterMicros(%s, %s)", tsString(f.start), tsString(f.end))
	case fColumnRange:
		return fmt.Sprintf("ColumnRangeFilter(%q, %q, %q)", f.fam, f.qa, f.qb)
	case fCellsPerRowLimit:
		return fmt.Sprintf("CellsPerRowLimitFilter(%d)", f.n)
	case fCellsPerRowOffset:
		return fmt.Sprintf("CellsPerRowOffsetFilter(%d)", f.n)
	case fCondition:
		return fmt.Sprintf("ConditionFilter(%s, %s, %s)", f.subs[0], f.subs[1], f.subs[2])
	case fPassAll:
		return "PassAllFilter()"
	case fBlockAll:
		return "BlockAllFilter()"
	}
	return fmt.Sprintf("filter(%d)", int(f.kind))
}

// rangeKind names one RowRange constructor.
type rangeKind int

const (
	rNew      rangeKind = iota // NewRange(a, b)
	rPrefix                    // PrefixRange(a)
	rInfinite                  // InfiniteRange(a)
)

type rangeSpec struct {
	kind rangeKind
	a, b string
}

func (r rangeSpec) String() string {
	switch r.kind {
	case rNew:
		return fmt.Sprintf("NewRange(%q, %q)", r.a, r.b)
	case rPrefix:
		return fmt.Sprintf("PrefixRange(%q)", r.a)
	default:
		return fmt.Sprintf("InfiniteRange(%q)", r.a)
	}
}

// rowSetKind names one RowSet constructor.
type rowSetKind int

const (
	rsSingle    rowSetKind = iota // SingleRow(keys[0])
	rsList                        // RowList(keys)
	rsRange                       // ranges[0]
	rsRangeList                   // RowRangeList(ranges)
)

type rowSetSpec struct {
	kind   rowSetKind
	keys   []string
	ranges []rangeSpec
}

func (rs rowSetSpec) String() string {
	switch rs.kind {
	case rsSingle:
		return fmt.Sprintf("SingleRow(%q)", rs.keys[0])
	case rsList:
		return fmt.Sprintf("RowList%q", rs.keys)
	case rsRange:
		return rs.ranges[0].String()
	default:
		parts := make([]string, len(rs.ranges))
		for i, r := range rs.ranges {
			parts[i] = r.String()
		}
		return "RowRangeList{" + strings.Join(parts, ", ") + "}"
	}
}

// rmwRule is one rule of a ReadModifyWrite.
type rmwRule struct {
	increment bool
	fam, qual string
	value     string // AppendValue
	delta     int64  // Increment
}

func (r rmwRule) String() string {
	if r.increment {
		return fmt.Sprintf("Increment(%q, %q, %d)", r.fam, r.qual, r.delta)
	}
	return fmt.Sprintf("AppendValue(%q, %q, %s)", r.fam, r.qual, valueString(r.value))
}

// opKind names one call on a table.
type opKind int

const (
	opApply    opKind = iota // Apply(row, muts)
	opCond                   // Apply(row, NewCondMutation(cond, mtrue, mfalse), GetCondMutationResult)
	opBulk                   // ApplyBulk(bulkRows, bulkMuts)
	opRMW                    // ApplyReadModifyWrite(row, rules)
	opReadRow                // ReadRow(row, RowFilter(filter)?)
	opReadRows               // ReadRows(rs, RowFilter(filter)?, LimitRows(limit)?), stop after stopAfter rows
	opReopen                 // close and reopen our store (the reference keeps its state)
)

type op struct {
	kind   opKind
	row    string
	muts   []mutOp
	cond   *filterSpec // opCond: nil = no predicate
	mtrue  []mutOp     // opCond: nil = nil *Mutation
	mfalse []mutOp

	bulkRows []string
	bulkMuts [][]mutOp

	rules []rmwRule

	rs        rowSetSpec
	filter    *filterSpec // nil = no RowFilter option
	limit     int64       // opReadRows: 0 = no LimitRows option
	stopAfter int         // opReadRows: the callback returns false after this many rows; 0 = never
	iter      bool        // opReadRows: use our iterator form (Rows) instead of ReadRows
}

func (o op) String() string {
	opts := func() string {
		var s []string
		if o.filter != nil {
			s = append(s, "RowFilter("+o.filter.String()+")")
		}
		if o.limit != 0 {
			s = append(s, fmt.Sprintf("LimitRows(%d)", o.limit))
		}
		if len(s) == 0 {
			return ""
		}
		return ", " + strings.Join(s, ", ")
	}
	switch o.kind {
	case opApply:
		return fmt.Sprintf("Apply(%q, %s)", o.row, mutsString(o.muts))
	case opCond:
		return fmt.Sprintf("Apply(%q, NewCondMutation(%s, %s, %s), GetCondMutationResult(&matched))",
			o.row, o.cond, mutsString(o.mtrue), mutsString(o.mfalse))
	case opBulk:
		parts := make([]string, len(o.bulkRows))
		for i := range o.bulkRows {
			parts[i] = fmt.Sprintf("%q: %s", o.bulkRows[i], mutsString(o.bulkMuts[i]))
		}
		return "ApplyBulk{" + strings.Join(parts, ", ") + "}"
	case opRMW:
		parts := make([]string, len(o.rules))
		for i, r := range o.rules {
			parts[i] = r.String()
		}
		return fmt.Sprintf("ApplyReadModifyWrite(%q, ReadModifyWrite{%s})", o.row, strings.Join(parts, "; "))
	case opReadRow:
		return fmt.Sprintf("ReadRow(%q%s)", o.row, opts())
	case opReadRows:
		s := fmt.Sprintf("ReadRows(%s%s)", o.rs, opts())
		if o.stopAfter > 0 {
			s += fmt.Sprintf(" stopping after %d rows", o.stopAfter)
		}
		if o.iter {
			s += " [iterator form]"
		}
		return s
	case opReopen:
		return "Reopen() // ours only"
	}
	return fmt.Sprintf("op(%d)", int(o.kind))
}

// farBase is the first "future" timestamp of the alphabet: cells at or above
// it are newer than the wall clock, which makes ReadModifyWrite deterministic
// on them (the new cell's timestamp is max(now, newest), i.e. the newest cell
// is replaced in place). About year 2096; a multiple of 1000 µs.
const farBase int64 = 4_000_000_000_000_000

// nowMarker replaces, in compared results, every timestamp that was assigned
// from the wall clock (ReadModifyWrite on a column with no future cell): the
// two stores read their clocks at different instants and with different
// granularity (ms in bttest, µs in ours).
const nowMarker int64 = 1

// serverTime is bigtable.ServerTime: the store stamps the cell with its clock.
const serverTime int64 = -1

func tsString(ts int64) string {
	switch {
	case ts == serverTime:
		return "ServerTime"
	case ts == nowMarker:
		return "NOW"
	case ts >= farBase:
		return "far+" + strconv.FormatInt(ts-farBase, 10)
	}
	return strconv.FormatInt(ts, 10)
}

// valueString quotes v, naming bigValue and shortening other long values.
func valueString(v string) string {
	switch {
	case v == bigValue:
		return "bigValue"
	case strings.HasPrefix(v, bigValue):
		return fmt.Sprintf("bigValue+%q", v[len(bigValue):])
	case len(v) > 40:
		return fmt.Sprintf("%q…(%d bytes)", v[:16], len(v))
	}
	return strconv.Quote(v)
}
