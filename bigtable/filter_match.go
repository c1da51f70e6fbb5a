package bigtable

import (
	"fmt"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// RowKeyFilter returns a filter that passes the cells of rows whose whole key
// matches pattern. An empty pattern is an error (ErrInvalidFilter).
func RowKeyFilter(pattern string) Filter { return rowKeyFilter(pattern) }

type rowKeyFilter string

func (f rowKeyFilter) String() string { return fmt.Sprintf("row(%s)", string(f)) }

func (f rowKeyFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.RowKey, Pattern: string(f)}, nil
}

func (f rowKeyFilter) compile() (stage, error) {
	if f == "" {
		return nil, fmt.Errorf("%w: %s: empty row key pattern", ErrInvalidFilter, f)
	}
	re, err := compileByteRegexp(string(f))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidFilter, f, err)
	}
	return &rowKeyStage{re: re}, nil
}

type rowKeyStage struct {
	re    *byteRegexp
	match bool
}

func (s *rowKeyStage) startRow(key string) { s.match = s.re.matchString(key) }

func (s *rowKeyStage) apply(in, out []cell) ([]cell, error) {
	if s.match {
		out = append(out, in...)
	}
	return out, nil
}

// FamilyFilter returns a filter that passes cells whose family name matches pattern.
func FamilyFilter(pattern string) Filter { return familyFilter(pattern) }

type familyFilter string

func (f familyFilter) String() string { return fmt.Sprintf("col(%s:)", string(f)) }

func (f familyFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.Family, Pattern: string(f)}, nil
}

func (f familyFilter) compile() (stage, error) {
	return memoMatch(f, string(f), func(c *cell) (string, string) { return c.family, c.family })
}

// ColumnFilter returns a filter that passes cells whose qualifier matches pattern.
func ColumnFilter(pattern string) Filter { return columnFilter(pattern) }

type columnFilter string

func (f columnFilter) String() string { return fmt.Sprintf("col(.*:%s)", string(f)) }

func (f columnFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.Column, Pattern: string(f)}, nil
}

func (f columnFilter) compile() (stage, error) {
	return memoMatch(f, string(f), func(c *cell) (string, string) { return c.column, c.qualifier })
}

// memoMatch compiles pattern into a stage passing the cells whose subject
// it matches; of is the cell's key, under which the answer is kept while
// it repeats (cells of one column come together), and its subject.
func memoMatch(f Filter, pattern string, of func(*cell) (key, subject string)) (stage, error) {
	re, err := compileByteRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidFilter, f, err)
	}
	var last string
	var lastOK, valid bool
	return predStage{func(c *cell) (bool, error) {
		if key, subject := of(c); !valid || key != last {
			last, lastOK, valid = key, re.matchString(subject), true
		}
		return lastOK, nil
	}}, nil
}

// ValueFilter returns a filter that passes cells whose value matches pattern.
func ValueFilter(pattern string) Filter { return valueFilter(pattern) }

type valueFilter string

func (f valueFilter) String() string { return fmt.Sprintf("value_match(%s)", string(f)) }

func (f valueFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.Value, Pattern: string(f)}, nil
}

func (f valueFilter) compile() (stage, error) {
	re, err := compileByteRegexp(string(f))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidFilter, f, err)
	}
	return predStage{func(c *cell) (bool, error) {
		v, err := c.value()
		if err != nil {
			return false, err
		}
		return re.match(v), nil
	}}, nil
}
