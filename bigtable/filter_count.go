package bigtable

import (
	"fmt"
	"math/rand/v2"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// LatestNFilter returns a filter that passes the newest n cells of each
// column (of those reaching it). n must be positive.
func LatestNFilter(n int) Filter { return latestNFilter(n) }

type latestNFilter int

func (f latestNFilter) String() string { return fmt.Sprintf("col(*,%d)", int(f)) }

func (f latestNFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.LatestN, N: int(f)}, nil
}

func (f latestNFilter) compile() (stage, error) {
	if f <= 0 {
		return nil, fmt.Errorf("%w: %s: limit must be positive", ErrInvalidFilter, f)
	}
	return &latestNStage{n: int(f)}, nil
}

type latestNStage struct {
	n      int
	column string
	count  int
}

func (s *latestNStage) startRow(string) { s.column, s.count = "", 0 }

func (s *latestNStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		if c.column != s.column {
			s.column, s.count = c.column, 0
		}
		if s.count < s.n {
			out = append(out, c)
		}
		s.count++
	}
	return out, nil
}

// CellsPerRowLimitFilter returns a filter that passes the first n cells of
// each row, in family, qualifier, newest-first order. n must be positive.
func CellsPerRowLimitFilter(n int) Filter { return cellsPerRowLimitFilter(n) }

type cellsPerRowLimitFilter int

func (f cellsPerRowLimitFilter) String() string {
	return fmt.Sprintf("cells_per_row_limit(%d)", int(f))
}

func (f cellsPerRowLimitFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.CellsPerRowLimit, N: int(f)}, nil
}

func (f cellsPerRowLimitFilter) compile() (stage, error) {
	if f <= 0 {
		return nil, fmt.Errorf("%w: %s: limit must be positive", ErrInvalidFilter, f)
	}
	return &rowLimitStage{n: int(f)}, nil
}

type rowLimitStage struct{ n, count int }

func (s *rowLimitStage) startRow(string) { s.count = 0 }

func (s *rowLimitStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		if s.count < s.n {
			out = append(out, c)
		}
		s.count++
	}
	return out, nil
}

// CellsPerRowOffsetFilter returns a filter that skips the first n cells of
// each row, in family, qualifier, newest-first order. n must not be negative.
func CellsPerRowOffsetFilter(n int) Filter { return cellsPerRowOffsetFilter(n) }

type cellsPerRowOffsetFilter int

func (f cellsPerRowOffsetFilter) String() string {
	return fmt.Sprintf("cells_per_row_offset(%d)", int(f))
}

func (f cellsPerRowOffsetFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.CellsPerRowOffset, N: int(f)}, nil
}

func (f cellsPerRowOffsetFilter) compile() (stage, error) {
	if f < 0 {
		return nil, fmt.Errorf("%w: %s: offset must not be negative", ErrInvalidFilter, f)
	}
	return &rowOffsetStage{n: int(f)}, nil
}

type rowOffsetStage struct{ n, count int }

func (s *rowOffsetStage) startRow(string) { s.count = 0 }

func (s *rowOffsetStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		if s.count >= s.n {
			out = append(out, c)
		}
		s.count++
	}
	return out, nil
}

// RowSampleFilter returns a filter that passes each row whole with
// probability p, which must be in (0, 1).
func RowSampleFilter(p float64) Filter { return rowSampleFilter(p) }

type rowSampleFilter float64

func (f rowSampleFilter) String() string { return fmt.Sprintf("filter(%f)", float64(f)) }

func (f rowSampleFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.RowSample, Probability: float64(f)}, nil
}

func (f rowSampleFilter) compile() (stage, error) {
	if f <= 0 || f >= 1 {
		return nil, fmt.Errorf("%w: %s: probability must be in (0, 1)", ErrInvalidFilter, f)
	}
	return &rowSampleStage{p: float64(f)}, nil
}

type rowSampleStage struct {
	p     float64
	match bool
}

func (s *rowSampleStage) startRow(string) { s.match = rand.Float64() < s.p }

func (s *rowSampleStage) apply(in, out []cell) ([]cell, error) {
	if s.match {
		out = append(out, in...)
	}
	return out, nil
}
