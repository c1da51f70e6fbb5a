package bigtable

import (
	"fmt"
	"slices"
	"strings"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// ChainFilters returns a filter that applies sub in sequence, each to the
// output of the one before. As in Cloud Bigtable, a chain of fewer than two
// filters is an error (ErrInvalidFilter) when it is used.
func ChainFilters(sub ...Filter) Filter { return chainFilter(sub) }

type chainFilter []Filter

func (f chainFilter) String() string { return joinFilters(f, " | ") }

func (f chainFilter) describe() (*spec.Filter, error) { return subFilterSpec(spec.Chain, f) }

func (f chainFilter) compile() (stage, error) {
	return compileList("Chain", f, func(subs []stage) stage { return &chainStage{subs: subs} })
}

type chainStage struct {
	subs []stage
	bufs [2][]cell
}

func (s *chainStage) startRow(key string) {
	for _, sub := range s.subs {
		sub.startRow(key)
	}
}

func (s *chainStage) apply(in, out []cell) ([]cell, error) {
	cur := in
	for i, sub := range s.subs {
		// NB: the stages after one that passed nothing still see the row
		// start; they just get no cells, as in Cloud Bigtable.
		buf, err := sub.apply(cur, s.bufs[i%2][:0])
		if err != nil {
			return out, err
		}
		s.bufs[i%2] = buf
		cur = buf
		if len(cur) == 0 {
			return out, nil
		}
	}
	return append(out, cur...), nil
}

// InterleaveFilters returns a filter that applies each of sub to the row and
// returns the union of their results, in column order and newest first; a
// cell passed by several sub-filters appears once per sub-filter, in the
// order of sub. As in Cloud Bigtable, an interleave of fewer than two
// filters is an error (ErrInvalidFilter) when it is used.
func InterleaveFilters(sub ...Filter) Filter { return interleaveFilter(sub) }

type interleaveFilter []Filter

func (f interleaveFilter) String() string { return joinFilters(f, " + ") }

func (f interleaveFilter) describe() (*spec.Filter, error) {
	return subFilterSpec(spec.Interleave, f)
}

func (f interleaveFilter) compile() (stage, error) {
	return compileList("Interleave", f, func(subs []stage) stage {
		return &interleaveStage{subs: subs, bufs: make([][]cell, len(subs))}
	})
}

type interleaveStage struct {
	subs []stage
	bufs [][]cell
}

func (s *interleaveStage) startRow(key string) {
	for _, sub := range s.subs {
		sub.startRow(key)
	}
}

func (s *interleaveStage) apply(in, out []cell) ([]cell, error) {
	start := len(out)
	for i, sub := range s.subs {
		buf, err := sub.apply(in, s.bufs[i][:0])
		if err != nil {
			return out, err
		}
		s.bufs[i] = buf
		out = append(out, buf...)
	}
	if len(in) > 1 {
		// Each sub-result is in key order; a stable sort merges them and
		// keeps sub-filter order among copies of one cell.
		slices.SortStableFunc(out[start:], compareCells)
	}
	return out, nil
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

func (f conditionFilter) describe() (*spec.Filter, error) {
	out := &spec.Filter{Kind: spec.Condition}
	var err error
	if out.Predicate, err = filterSpec(f.pred); err != nil {
		return nil, err
	}
	if out.True, err = filterSpec(f.ifTrue); err != nil {
		return nil, err
	}
	if out.False, err = filterSpec(f.ifFalse); err != nil {
		return nil, err
	}
	return out, nil
}

func (f conditionFilter) compile() (stage, error) {
	if f.pred == nil {
		return nil, fmt.Errorf("%w: condition without a predicate", ErrInvalidFilter)
	}
	s := &conditionStage{ifTrue: blockStage{}, ifFalse: blockStage{}}
	var err error
	if s.pred, err = f.pred.compile(); err != nil {
		return nil, err
	}
	if f.ifTrue != nil {
		if s.ifTrue, err = f.ifTrue.compile(); err != nil {
			return nil, err
		}
	}
	if f.ifFalse != nil {
		if s.ifFalse, err = f.ifFalse.compile(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// conditionStage must get the whole row in one apply call.
type conditionStage struct {
	pred, ifTrue, ifFalse stage
	buf                   []cell
}

func (s *conditionStage) startRow(key string) {
	s.pred.startRow(key)
	s.ifTrue.startRow(key)
	s.ifFalse.startRow(key)
}

func (s *conditionStage) apply(in, out []cell) ([]cell, error) {
	var err error
	s.buf, err = s.pred.apply(in, s.buf[:0])
	if err != nil {
		return out, err
	}
	if len(s.buf) > 0 {
		return s.ifTrue.apply(in, out)
	}
	return s.ifFalse.apply(in, out)
}

func joinFilters(fs []Filter, sep string) string {
	ss := make([]string, len(fs))
	for i, f := range fs {
		ss[i] = f.String()
	}
	return "(" + strings.Join(ss, sep) + ")"
}

func subFilterSpec(kind spec.FilterKind, subs []Filter) (*spec.Filter, error) {
	out := &spec.Filter{Kind: kind, Sub: make([]*spec.Filter, len(subs))}
	for i, s := range subs {
		var err error
		if out.Sub[i], err = filterSpec(s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compileList compiles the sub-filters of a chain or an interleave (kind
// names it) and joins them by join. Fewer than two is an error, worded as
// Cloud Bigtable words it, so that code written here does not break there.
func compileList(kind string, f []Filter, join func([]stage) stage) (stage, error) {
	if len(f) < 2 {
		return nil, fmt.Errorf("%w: %s must contain at least two RowFilters, got %d (use the filter itself, or PassAllFilter or BlockAllFilter for none)", ErrInvalidFilter, kind, len(f))
	}
	subs, err := compileAll(f)
	if err != nil {
		return nil, err
	}
	return join(subs), nil
}

func compileAll(fs []Filter) ([]stage, error) {
	out := make([]stage, len(fs))
	for i, f := range fs {
		if f == nil {
			return nil, fmt.Errorf("%w: nil sub-filter", ErrInvalidFilter)
		}
		s, err := f.compile()
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}
