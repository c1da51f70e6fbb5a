package spec

// RowSetKind names a variant of bigtable.RowSet.
type RowSetKind uint8

// The row set variants. NoRowSet stands for a nil RowSet.
const (
	NoRowSet     RowSetKind = iota
	ListSet                 // bigtable.RowList (SingleRow too): Keys
	RangeSet                // bigtable.RowRange: Ranges[0]
	RangeListSet            // bigtable.RowRangeList: Ranges
)

// RowSet is a bigtable.RowSet as data.
type RowSet struct {
	Kind   RowSetKind
	Keys   []string   // ListSet, in the caller's order, "" included
	Ranges []RowRange // one for RangeSet; any number for RangeListSet
}

// Bound is the kind of one end of a RowRange.
type Bound uint8

// The bound kinds.
const (
	Unbounded Bound = iota // no limit on that side; the key is ""
	Open                   // the key itself is excluded
	Closed                 // the key itself is included
)

// RowRange is a bigtable.RowRange as data. As in package bigtable, an empty
// key always comes with Unbounded.
type RowRange struct {
	StartBound Bound
	Start      string
	EndBound   Bound
	End        string
}

// OpKind names one operation of a bigtable.Mutation.
type OpKind uint8

// The mutation operations.
const (
	Set                  OpKind = iota + 1 // Family, Qualifier, Timestamp, Value
	DeleteCellsInColumn                    // Family, Qualifier
	DeleteTimestampRange                   // Family, Qualifier, Start, End
	DeleteCellsInFamily                    // Family
	DeleteRow                              // no fields
)

// Op is one operation of a mutation, in the order it was added.
type Op struct {
	Kind              OpKind
	Family, Qualifier string
	// Timestamp is a Set's version in microseconds, or -1 (ServerTime).
	Timestamp int64
	// Start and End are a DeleteTimestampRange's [Start, End) in
	// microseconds; End 0 is unbounded.
	Start, End int64
	Value      []byte
}

// Mutation is a bigtable.Mutation as data: plain (Ops) or conditional
// (Cond set, with Predicate, True and False).
type Mutation struct {
	Ops []Op
	// Cond marks a NewCondMutation. Predicate nil means "the row has any
	// cell"; True and False may be nil (do nothing).
	Cond        bool
	Predicate   *Filter
	True, False *Mutation
}

// ApplyOptions are bigtable.ApplyOptions as data.
type ApplyOptions struct {
	// CondResults are the targets of GetCondMutationResult options, in
	// order; nil targets are kept and must be skipped.
	CondResults []*bool
}

// ReadSettings are bigtable.ReadOptions as data, combined as package
// bigtable combines them (several RowFilters chained in order, the last
// LimitRows counting).
type ReadSettings struct {
	Filter *Filter // nil: no filter
	// LimitSet says a LimitRows option was given; Limit is its n.
	LimitSet bool
	Limit    int64
}

// RMWRule is one rule of a bigtable.ReadModifyWrite: an Increment by Delta
// or an AppendValue of Append.
type RMWRule struct {
	Family, Qualifier string
	Increment         bool
	Delta             int64
	Append            []byte
}

// ReadModifyWrite is a bigtable.ReadModifyWrite as data.
type ReadModifyWrite struct {
	Rules []RMWRule
}
