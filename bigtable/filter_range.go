package bigtable

import (
	"bytes"
	"fmt"
	"time"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

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

func (f timestampRangeFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.TimestampRange, Start: int64(f.start), End: int64(f.end)}, nil
}

func (f timestampRangeFilter) compile() (stage, error) {
	return predStage{func(c *cell) (bool, error) {
		return c.ts >= f.start && (f.end == 0 || c.ts < f.end), nil
	}}, nil
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

func (f columnRangeFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.ColumnRange, Family: f.family, StartQualifier: f.start, EndQualifier: f.end}, nil
}

func (f columnRangeFilter) compile() (stage, error) {
	return predStage{func(c *cell) (bool, error) {
		return c.family == f.family && c.qualifier >= f.start && (f.end == "" || c.qualifier < f.end), nil
	}}, nil
}

// ValueRangeFilter returns a filter that passes cells whose value is in
// [start, end) in byte order; nil leaves that side unbounded.
func ValueRangeFilter(start, end []byte) Filter { return valueRangeFilter{start, end} }

type valueRangeFilter struct{ start, end []byte }

func (f valueRangeFilter) String() string {
	return fmt.Sprintf("valueRangeFilter(%s,%s)", f.start, f.end)
}

func (f valueRangeFilter) describe() (*spec.Filter, error) {
	return &spec.Filter{Kind: spec.ValueRange, StartValue: f.start, EndValue: f.end}, nil
}

func (f valueRangeFilter) compile() (stage, error) {
	return predStage{func(c *cell) (bool, error) {
		v, err := c.value()
		if err != nil {
			return false, err
		}
		return (f.start == nil || bytes.Compare(v, f.start) >= 0) && (f.end == nil || bytes.Compare(v, f.end) < 0), nil
	}}, nil
}
