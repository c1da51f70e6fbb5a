package bigtable

import "github.com/webtable/webtable/bigtable/internal/spec"

// PassAllFilter returns a filter that passes every cell.
func PassAllFilter() Filter { return passAllFilter{} }

type passAllFilter struct{}

func (passAllFilter) String() string { return "passAllFilter()" }

func (passAllFilter) describe() (*spec.Filter, error) { return &spec.Filter{Kind: spec.PassAll}, nil }

func (passAllFilter) compile() (stage, error) { return passStage{}, nil }

type passStage struct{}

func (passStage) startRow(string)                      {}
func (passStage) apply(in, out []cell) ([]cell, error) { return append(out, in...), nil }

// BlockAllFilter returns a filter that passes no cell.
func BlockAllFilter() Filter { return blockAllFilter{} }

type blockAllFilter struct{}

func (blockAllFilter) String() string { return "blockAllFilter()" }

func (blockAllFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.BlockAll}, nil
}

func (blockAllFilter) compile() (stage, error) { return blockStage{}, nil }

type blockStage struct{}

func (blockStage) startRow(string)                     {}
func (blockStage) apply(_, out []cell) ([]cell, error) { return out, nil }

// StripValueFilter returns a filter that replaces every value with an empty one.
func StripValueFilter() Filter { return stripValueFilter{} }

type stripValueFilter struct{}

func (stripValueFilter) String() string { return "strip_value()" }

func (stripValueFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.StripValue}, nil
}

func (stripValueFilter) compile() (stage, error) { return stripStage{}, nil }

type stripStage struct{}

func (stripStage) startRow(string) {}
func (stripStage) apply(in, out []cell) ([]cell, error) {
	for _, c := range in {
		c.val = nil
		out = append(out, c)
	}
	return out, nil
}
