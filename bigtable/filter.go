package bigtable

import (
	"fmt"
	"strings"
	"time"
)

// A Filter selects and transforms the cells of a row during a read, with
// Cloud Bigtable's semantics: a row whose filtered result holds no cell is
// not returned. Build filters with the constructors below; the interface is
// sealed.
//
// Patterns are RE2 expressions (Go's regexp syntax) that must match the whole
// family name, qualifier, row key or value, over raw bytes: each byte counts
// as one character (Latin-1), so "." matches any single byte except '\n',
// `\xff` matches the byte 0xFF and "é" written in UTF-8 matches its two bytes.
type Filter interface {
	String() string
	// compile returns a fresh evaluator; each read compiles its own.
	compile() (stage, error)
}

// ChainFilters returns a filter that applies sub in sequence, each to the
// output of the one before. As in Cloud Bigtable, a chain of fewer than two
// filters is an error (ErrInvalidFilter) when it is used.
func ChainFilters(sub ...Filter) Filter { return chainFilter(sub) }

type chainFilter []Filter

func (f chainFilter) String() string { return joinFilters(f, " | ") }

// InterleaveFilters returns a filter that applies each of sub to the row and
// returns the union of their results, in column order and newest first; a
// cell passed by several sub-filters appears once per sub-filter, in the
// order of sub. As in Cloud Bigtable, an interleave of fewer than two
// filters is an error (ErrInvalidFilter) when it is used.
func InterleaveFilters(sub ...Filter) Filter { return interleaveFilter(sub) }

type interleaveFilter []Filter

func (f interleaveFilter) String() string { return joinFilters(f, " + ") }

func joinFilters(fs []Filter, sep string) string {
	ss := make([]string, len(fs))
	for i, f := range fs {
		ss[i] = f.String()
	}
	return "(" + strings.Join(ss, sep) + ")"
}

// RowKeyFilter returns a filter that passes the cells of rows whose whole key
// matches pattern. An empty pattern is an error (ErrInvalidFilter).
func RowKeyFilter(pattern string) Filter { return rowKeyFilter(pattern) }

type rowKeyFilter string

func (f rowKeyFilter) String() string { return fmt.Sprintf("row(%s)", string(f)) }

// FamilyFilter returns a filter that passes cells whose family name matches pattern.
func FamilyFilter(pattern string) Filter { return familyFilter(pattern) }

type familyFilter string

func (f familyFilter) String() string { return fmt.Sprintf("col(%s:)", string(f)) }

// ColumnFilter returns a filter that passes cells whose qualifier matches pattern.
func ColumnFilter(pattern string) Filter { return columnFilter(pattern) }

type columnFilter string

func (f columnFilter) String() string { return fmt.Sprintf("col(.*:%s)", string(f)) }

// ValueFilter returns a filter that passes cells whose value matches pattern.
func ValueFilter(pattern string) Filter { return valueFilter(pattern) }

type valueFilter string

func (f valueFilter) String() string { return fmt.Sprintf("value_match(%s)", string(f)) }

// LatestNFilter returns a filter that passes the newest n cells of each
// column (of those reaching it). n must be positive.
func LatestNFilter(n int) Filter { return latestNFilter(n) }

type latestNFilter int

func (f latestNFilter) String() string { return fmt.Sprintf("col(*,%d)", int(f)) }

// StripValueFilter returns a filter that replaces every value with an empty one.
func StripValueFilter() Filter { return stripValueFilter{} }

type stripValueFilter struct{}

func (stripValueFilter) String() string { return "strip_value()" }

// TimestampRangeFilter returns a filter that passes cells with timestamps in
// [start, end); a zero time.Time leaves that side unbounded.
func TimestampRangeFilter(start, end time.Time) Filter {
	var f timestampRangeFilter
	if !start.IsZero() {
		f.start = Time(start)
	}
	if !end.IsZero() {
		f.end = Time(end)
	}
	return f
}

// TimestampRangeFilterMicros returns a filter that passes cells with
// timestamps in [start, end), in microseconds; 0 leaves that side unbounded.
// Unlike Cloud Bigtable this store does not truncate them to milliseconds.
func TimestampRangeFilterMicros(start, end Timestamp) Filter {
	return timestampRangeFilter{start, end}
}

type timestampRangeFilter struct{ start, end Timestamp }

func (f timestampRangeFilter) String() string {
	return fmt.Sprintf("timestamp_range(%v,%v)", f.start, f.end)
}

// ColumnRangeFilter returns a filter that passes cells of family whose
// qualifier is in [start, end); "" leaves that side unbounded.
func ColumnRangeFilter(family, start, end string) Filter {
	return columnRangeFilter{family, start, end}
}

type columnRangeFilter struct{ family, start, end string }

func (f columnRangeFilter) String() string {
	return fmt.Sprintf("columnRangeFilter(%s,%s,%s)", f.family, f.start, f.end)
}

// ValueRangeFilter returns a filter that passes cells whose value is in
// [start, end) in byte order; nil leaves that side unbounded.
func ValueRangeFilter(start, end []byte) Filter { return valueRangeFilter{start, end} }

type valueRangeFilter struct{ start, end []byte }

func (f valueRangeFilter) String() string {
	return fmt.Sprintf("valueRangeFilter(%s,%s)", f.start, f.end)
}

// ConditionFilter returns a filter that applies trueFilter to a row when
// predicateFilter passes at least one of its cells, and falseFilter
// otherwise. A nil branch passes nothing.
func ConditionFilter(predicateFilter, trueFilter, falseFilter Filter) Filter {
	return conditionFilter{predicateFilter, trueFilter, falseFilter}
}

type conditionFilter struct{ pred, ifTrue, ifFalse Filter }

func (f conditionFilter) String() string {
	return fmt.Sprintf("conditionFilter(%v,%v,%v)", f.pred, f.ifTrue, f.ifFalse)
}

// CellsPerRowOffsetFilter returns a filter that skips the first n cells of
// each row, in family, qualifier, newest-first order. n must not be negative.
func CellsPerRowOffsetFilter(n int) Filter { return cellsPerRowOffsetFilter(n) }

type cellsPerRowOffsetFilter int

func (f cellsPerRowOffsetFilter) String() string {
	return fmt.Sprintf("cells_per_row_offset(%d)", int(f))
}

// CellsPerRowLimitFilter returns a filter that passes the first n cells of
// each row, in family, qualifier, newest-first order. n must be positive.
func CellsPerRowLimitFilter(n int) Filter { return cellsPerRowLimitFilter(n) }

type cellsPerRowLimitFilter int

func (f cellsPerRowLimitFilter) String() string {
	return fmt.Sprintf("cells_per_row_limit(%d)", int(f))
}

// RowSampleFilter returns a filter that passes each row whole with
// probability p, which must be in (0, 1).
func RowSampleFilter(p float64) Filter { return rowSampleFilter(p) }

type rowSampleFilter float64

func (f rowSampleFilter) String() string { return fmt.Sprintf("filter(%f)", float64(f)) }

// PassAllFilter returns a filter that passes every cell.
func PassAllFilter() Filter { return passAllFilter{} }

type passAllFilter struct{}

func (passAllFilter) String() string { return "passAllFilter()" }

// BlockAllFilter returns a filter that passes no cell.
func BlockAllFilter() Filter { return blockAllFilter{} }

type blockAllFilter struct{}

func (blockAllFilter) String() string { return "blockAllFilter()" }

// needsWholeRow reports whether f must see a whole row at once (a condition
// looks at every cell before passing any), so values are read eagerly.
func needsWholeRow(f Filter) bool {
	switch f := f.(type) {
	case conditionFilter:
		return true
	case chainFilter:
		for _, s := range f {
			if needsWholeRow(s) {
				return true
			}
		}
	case interleaveFilter:
		for _, s := range f {
			if needsWholeRow(s) {
				return true
			}
		}
	}
	return false
}
