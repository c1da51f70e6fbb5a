package spec

// FilterKind names a variant of bigtable.Filter.
type FilterKind uint8

// The filter variants, one per constructor of package bigtable.
// TimestampRangeFilter and TimestampRangeFilterMicros are both TimestampRange.
const (
	Chain             FilterKind = iota + 1 // ChainFilters: Sub in sequence
	Interleave                              // InterleaveFilters: union of Sub
	Condition                               // ConditionFilter: Predicate, True, False
	RowKey                                  // RowKeyFilter: Pattern
	Family                                  // FamilyFilter: Pattern
	Column                                  // ColumnFilter: Pattern
	Value                                   // ValueFilter: Pattern
	ValueRange                              // ValueRangeFilter: StartValue, EndValue
	ColumnRange                             // ColumnRangeFilter: Family, StartQualifier, EndQualifier
	LatestN                                 // LatestNFilter: N
	StripValue                              // StripValueFilter
	TimestampRange                          // TimestampRangeFilterMicros: Start, End
	CellsPerRowLimit                        // CellsPerRowLimitFilter: N
	CellsPerRowOffset                       // CellsPerRowOffsetFilter: N
	RowSample                               // RowSampleFilter: Probability
	PassAll                                 // PassAllFilter
	BlockAll                                // BlockAllFilter
)

var filterKindNames = [...]string{
	Chain: "Chain", Interleave: "Interleave", Condition: "Condition", RowKey: "RowKey",
	Family: "Family", Column: "Column", Value: "Value", ValueRange: "ValueRange",
	ColumnRange: "ColumnRange", LatestN: "LatestN", StripValue: "StripValue",
	TimestampRange: "TimestampRange", CellsPerRowLimit: "CellsPerRowLimit",
	CellsPerRowOffset: "CellsPerRowOffset", RowSample: "RowSample", PassAll: "PassAll",
	BlockAll: "BlockAll",
}

// String returns the kind's name, for example "LatestN".
func (k FilterKind) String() string {
	if int(k) < len(filterKindNames) && filterKindNames[k] != "" {
		return filterKindNames[k]
	}
	return "FilterKind(?)"
}

// Filter is one node of a bigtable.Filter tree. Only the fields its Kind
// names (see the constants) are set; a nil *Filter is an absent filter (a
// nil sub-filter, or a ConditionFilter branch that passes nothing).
type Filter struct {
	Kind FilterKind
	// Sub holds the members of a Chain or Interleave, in order; an entry
	// may be nil if the caller passed a nil Filter.
	Sub []*Filter
	// Predicate, True and False are a Condition's parts; True and False
	// may be nil (that branch passes nothing).
	Predicate, True, False *Filter
	// Pattern is the RE2 pattern of RowKey, Family, Column and Value.
	Pattern string
	// N is the count of LatestN, CellsPerRowLimit and CellsPerRowOffset.
	N int
	// Start and End bound a TimestampRange, in microseconds: [Start, End),
	// 0 being unbounded on that side.
	Start, End int64
	// Family, StartQualifier and EndQualifier are a ColumnRange: qualifiers
	// in [StartQualifier, EndQualifier) of Family, "" unbounded.
	Family, StartQualifier, EndQualifier string
	// StartValue and EndValue bound a ValueRange: [StartValue, EndValue),
	// nil unbounded.
	StartValue, EndValue []byte
	// Probability is a RowSample's chance of passing a row.
	Probability float64
}
