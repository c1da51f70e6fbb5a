package bigtable

import (
	"context"
	"fmt"
)

// A ReadOption is an optional argument to ReadRows and ReadRow: RowFilter or
// LimitRows. The interface is sealed.
type ReadOption interface{ set(*readSettings) }

type readSettings struct {
	filter   Filter
	limit    int64
	limitSet bool
}

// RowFilter returns a ReadOption that applies f to every row read. Several
// RowFilter options are chained in order.
func RowFilter(f Filter) ReadOption { return rowFilterOption{f} }

type rowFilterOption struct{ f Filter }

func (o rowFilterOption) set(s *readSettings) {
	if s.filter == nil {
		s.filter = o.f
	} else {
		s.filter = ChainFilters(s.filter, o.f)
	}
}

// LimitRows returns a ReadOption that stops a read after n rows. As with the
// Cloud Bigtable client, LimitRows(0) reads no row and a negative n is an
// error; the last LimitRows of a read counts.
func LimitRows(n int64) ReadOption { return limitRowsOption(n) }

type limitRowsOption int64

func (o limitRowsOption) set(s *readSettings) { s.limit, s.limitSet = int64(o), true }

// readSettings gathers the read options; none is true when they ask for no
// row at all (LimitRows(0)), and a negative limit is an error, as in the
// Cloud client.
func (t *Table) readSettings(ctx context.Context, opts []ReadOption) (s readSettings, none bool, err error) {
	if len(opts) > 0 {
		s = gatherOptions(opts)
	}
	if s.limitSet && s.limit < 0 {
		return s, false, fmt.Errorf("bigtable: read %q: row limit %d cannot be negative", t.name, s.limit)
	}
	if err := ctx.Err(); err != nil {
		return s, false, err
	}
	return s, s.limitSet && s.limit == 0, nil
}

// gatherOptions applies opts to fresh settings.
//
// NB: apart from readSettings, so that the settings of a read without
// options (most point reads) do not escape to the heap through the
// interface calls.
func gatherOptions(opts []ReadOption) (s readSettings) {
	for _, o := range opts {
		o.set(&s)
	}
	return s
}
