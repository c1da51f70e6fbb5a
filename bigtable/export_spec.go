package bigtable

import (
	"fmt"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// NB: this file is the only door to this package's unexported fields for the
// rest of the module. It registers with package internal/spec, at init, the
// functions that describe the sealed types as plain data, so the Cloud
// Bigtable adapter (bigtable/cloud) and the gRPC server (internal/wire) can
// translate them while this package exports nothing new. Filters describe
// themselves (each filter's describe method sits beside its constructor and
// compile, see filter.go), and GC policies too (gc.go, whose spec.GCPolicy is also their stored form); the other types are
// described by the switches below. A variant added to those later must be
// added to its switch too; until it is, the adapter fails with
// spec.ErrUnknownVariant instead of translating it wrongly.

func init() {
	spec.Register(spec.Hooks{
		Filter:          func(f any) (*spec.Filter, error) { return filterSpec(asFilter(f)) },
		RowSet:          func(rs any) (spec.RowSet, error) { return rowSetSpec(asRowSet(rs)) },
		Mutation:        func(m any) (*spec.Mutation, error) { return mutationSpec(m.(*Mutation)) },
		ApplyOptions:    func(o any) (spec.ApplyOptions, error) { return applyOptionsSpec(o.([]ApplyOption)) },
		ReadOptions:     func(o any) (spec.ReadSettings, error) { return readOptionsSpec(o.([]ReadOption)) },
		GCPolicy:        func(p any) (spec.GCPolicy, error) { return gcPolicySpec(asGCPolicy(p)) },
		ReadModifyWrite: func(m any) (*spec.ReadModifyWrite, error) { return rmwSpec(m.(*ReadModifyWrite)) },
	})
}

// asFilter, asRowSet and asGCPolicy accept an untyped nil as well as a nil
// interface value.
func asFilter(f any) Filter {
	if f == nil {
		return nil
	}
	return f.(Filter)
}

func asRowSet(rs any) RowSet {
	if rs == nil {
		return nil
	}
	return rs.(RowSet)
}

func asGCPolicy(p any) GCPolicy {
	if p == nil {
		return nil
	}
	return p.(GCPolicy)
}

func unknownVariant(what string, v any) error {
	return fmt.Errorf("%w: %s %T", spec.ErrUnknownVariant, what, v)
}

func boundSpec(b boundType) spec.Bound {
	switch b {
	case openBound:
		return spec.Open
	case closedBound:
		return spec.Closed
	}
	return spec.Unbounded
}

func rowRangeSpec(r RowRange) spec.RowRange {
	return spec.RowRange{StartBound: boundSpec(r.startBound), Start: r.start, EndBound: boundSpec(r.endBound), End: r.end}
}

func rowSetSpec(rs RowSet) (spec.RowSet, error) {
	switch rs := rs.(type) {
	case nil:
		return spec.RowSet{}, nil
	case RowList:
		return spec.RowSet{Kind: spec.ListSet, Keys: rs}, nil
	case RowRange:
		return spec.RowSet{Kind: spec.RangeSet, Ranges: []spec.RowRange{rowRangeSpec(rs)}}, nil
	case RowRangeList:
		out := spec.RowSet{Kind: spec.RangeListSet, Ranges: make([]spec.RowRange, len(rs))}
		for i, r := range rs {
			out.Ranges[i] = rowRangeSpec(r)
		}
		return out, nil
	}
	return spec.RowSet{}, unknownVariant("row set", rs)
}

var opKinds = [...]spec.OpKind{
	opSet:          spec.Set,
	opDeleteColumn: spec.DeleteCellsInColumn,
	opDeleteRange:  spec.DeleteTimestampRange,
	opDeleteFamily: spec.DeleteCellsInFamily,
	opDeleteRow:    spec.DeleteRow,
}

func mutationSpec(m *Mutation) (*spec.Mutation, error) {
	if m == nil {
		return nil, nil
	}
	out := &spec.Mutation{Ops: make([]spec.Op, len(m.ops)), Cond: m.isCond}
	for i, op := range m.ops {
		if int(op.kind) >= len(opKinds) {
			return nil, unknownVariant(fmt.Sprintf("mutation operation %d of", op.kind), m)
		}
		out.Ops[i] = spec.Op{Kind: opKinds[op.kind], Family: op.family, Qualifier: op.qualifier,
			Timestamp: int64(op.ts), Start: int64(op.start), End: int64(op.end), Value: op.value}
		if op.kind == opDeleteRange && op.unpruned {
			// NB: DeleteOnlyVersion's one microsecond is its millisecond
			// where timestamps are kept to the millisecond.
			out.Ops[i].Start = int64(op.start - op.start%1000)
			out.Ops[i].End = out.Ops[i].Start + 1000
		}
	}
	if !m.isCond {
		return out, nil
	}
	var err error
	if out.Predicate, err = filterSpec(m.cond); err != nil {
		return nil, err
	}
	if out.True, err = mutationSpec(m.mtrue); err != nil {
		return nil, err
	}
	if out.False, err = mutationSpec(m.mfalse); err != nil {
		return nil, err
	}
	return out, nil
}

func applyOptionsSpec(opts []ApplyOption) (spec.ApplyOptions, error) {
	var out spec.ApplyOptions
	for _, o := range opts {
		switch o := o.(type) {
		case condResult:
			out.CondResults = append(out.CondResults, o.matched)
		default:
			return spec.ApplyOptions{}, unknownVariant("apply option", o)
		}
	}
	return out, nil
}

func readOptionsSpec(opts []ReadOption) (spec.ReadSettings, error) {
	var s readSettings
	var out spec.ReadSettings
	for _, o := range opts {
		switch o := o.(type) {
		case rowFilterOption:
			o.set(&s) // chains several RowFilters as reads do
		case limitRowsOption:
			out.Limit, out.LimitSet = int64(o), true
		default:
			return spec.ReadSettings{}, unknownVariant("read option", o)
		}
	}
	var err error
	if out.Filter, err = filterSpec(s.filter); err != nil {
		return spec.ReadSettings{}, err
	}
	return out, nil
}

func gcPolicySpec(p GCPolicy) (spec.GCPolicy, error) {
	if p == nil {
		return spec.GCPolicy{Kind: spec.NoGC}, nil
	}
	return p.describe(), nil
}

func rmwSpec(m *ReadModifyWrite) (*spec.ReadModifyWrite, error) {
	if m == nil {
		return nil, nil
	}
	out := &spec.ReadModifyWrite{Rules: make([]spec.RMWRule, len(m.rules))}
	for i, r := range m.rules {
		out.Rules[i] = spec.RMWRule{Family: r.family, Qualifier: r.qualifier, Increment: r.increment, Delta: r.delta, Append: r.appendValue}
	}
	return out, nil
}
