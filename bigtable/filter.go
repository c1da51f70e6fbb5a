package bigtable

import "github.com/webtable/webtable/bigtable/internal/spec"

// A Filter selects and transforms the cells of a row during a read, with
// Cloud Bigtable's semantics: a row whose filtered result holds no cell is
// not returned. Build filters with the constructors; the interface is
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
	// describe returns the filter as plain data, the one description the
	// translators (bigtable/cloud, the gRPC server's wire package) read.
	describe() (*spec.Filter, error)
}

// NB: each filter family keeps its constructor, String, compile (its stage)
// and describe (its spec.Filter) side by side in one file:
//
//	filter_combine.go  ChainFilters, InterleaveFilters, ConditionFilter
//	filter_match.go    RowKeyFilter, FamilyFilter, ColumnFilter, ValueFilter
//	filter_range.go    TimestampRangeFilter(Micros), ColumnRangeFilter, ValueRangeFilter
//	filter_count.go    LatestNFilter, CellsPerRowLimitFilter, CellsPerRowOffsetFilter, RowSampleFilter
//	filter_basic.go    PassAllFilter, BlockAllFilter, StripValueFilter
//
// stage.go holds what the stages share (cells, the stage contract) and
// byteregexp.go the pattern matcher. A new filter is complete when it
// implements the three methods of Filter, which the compiler checks.

// compileFilter compiles f for one read; a nil filter passes every cell.
func compileFilter(f Filter) (stage, error) {
	if f == nil {
		return passStage{}, nil
	}
	return f.compile()
}

// filterSpec describes f; a nil filter gives nil.
func filterSpec(f Filter) (*spec.Filter, error) {
	if f == nil {
		return nil, nil
	}
	return f.describe()
}

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
