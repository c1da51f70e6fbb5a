package difftest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/webtable/webtable/bigtable"
)

// ourStore is our bigtable package on one Badger directory. Every sequence
// gets its own table in the one DB (which also checks that tables do not see
// each other's rows); opReopen closes and reopens the DB mid-sequence, to
// prove that what was written survives a restart.
type ourStore struct {
	dir  string
	opts []bigtable.Option
	mu   sync.Mutex
	db   *bigtable.DB
}

func newOurStore(t testing.TB, opts ...bigtable.Option) *ourStore {
	t.Helper()
	s := &ourStore{dir: t.TempDir(), opts: opts}
	db, err := bigtable.Open(s.dir, opts...)
	if err != nil {
		t.Fatalf("bigtable.Open(%q): %v", s.dir, err)
	}
	s.db = db
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func (s *ourStore) reopen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	db, err := bigtable.Open(s.dir, s.opts...)
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	s.db = db
	return nil
}

func (s *ourStore) table(name string) *bigtable.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.Open(name)
}

func (s *ourStore) factory() factory {
	return func(ctx context.Context, name string) (tableUnderTest, error) {
		s.mu.Lock()
		db := s.db
		s.mu.Unlock()
		if err := db.CreateTable(ctx, name); err != nil {
			return nil, fmt.Errorf("ours: create table %q: %w", name, err)
		}
		for _, f := range families {
			if err := db.CreateColumnFamily(ctx, name, f); err != nil {
				return nil, fmt.Errorf("ours: create family %q: %w", f, err)
			}
		}
		return &ourTable{s: s, name: name}, nil
	}
}

type ourTable struct {
	s    *ourStore
	name string
}

// drop keeps the table. NB: DeleteTable reclaims space with Badger's
// DropPrefix, which flushes the memtable and stalls writes: hundreds of those
// would dominate the run. The tables pile up in one DB instead, which also
// shows that tables do not see each other's rows.
func (t *ourTable) drop(context.Context) {}

func ourMutation(ms []mutOp) *bigtable.Mutation {
	if ms == nil {
		return nil
	}
	m := bigtable.NewMutation()
	for _, op := range ms {
		switch op.kind {
		case mSet:
			m.Set(op.fam, op.qual, bigtable.Timestamp(op.ts), []byte(op.value))
		case mDelCol:
			m.DeleteCellsInColumn(op.fam, op.qual)
		case mDelTsRange:
			m.DeleteTimestampRange(op.fam, op.qual, bigtable.Timestamp(op.start), bigtable.Timestamp(op.end))
		case mDelFam:
			m.DeleteCellsInFamily(op.fam)
		case mDelRow:
			m.DeleteRow()
		}
	}
	return m
}

func ourFilter(f *filterSpec) bigtable.Filter {
	switch f.kind {
	case fChain, fInterleave:
		subs := make([]bigtable.Filter, len(f.subs))
		for i, s := range f.subs {
			subs[i] = ourFilter(s)
		}
		if f.kind == fChain {
			return bigtable.ChainFilters(subs...)
		}
		return bigtable.InterleaveFilters(subs...)
	case fRowKey:
		return bigtable.RowKeyFilter(f.pattern)
	case fFamily:
		return bigtable.FamilyFilter(f.pattern)
	case fColumn:
		return bigtable.ColumnFilter(f.pattern)
	case fValue:
		return bigtable.ValueFilter(f.pattern)
	case fLatestN:
		return bigtable.LatestNFilter(f.n)
	case fStripValue:
		return bigtable.StripValueFilter()
	case fTimestampRange:
		return bigtable.TimestampRangeFilterMicros(bigtable.Timestamp(f.start), bigtable.Timestamp(f.end))
	case fColumnRange:
		return bigtable.ColumnRangeFilter(f.fam, f.qa, f.qb)
	case fCellsPerRowLimit:
		return bigtable.CellsPerRowLimitFilter(f.n)
	case fCellsPerRowOffset:
		return bigtable.CellsPerRowOffsetFilter(f.n)
	case fCondition:
		var sub [3]bigtable.Filter
		for i, s := range f.subs {
			if s != nil {
				sub[i] = ourFilter(s)
			}
		}
		return bigtable.ConditionFilter(sub[0], sub[1], sub[2])
	case fPassAll:
		return bigtable.PassAllFilter()
	case fBlockAll:
		return bigtable.BlockAllFilter()
	}
	panic(fmt.Sprintf("difftest: unknown filter kind %d", f.kind))
}

func ourRange(r rangeSpec) bigtable.RowRange {
	switch r.kind {
	case rNew:
		return bigtable.NewRange(r.a, r.b)
	case rPrefix:
		return bigtable.PrefixRange(r.a)
	default:
		return bigtable.InfiniteRange(r.a)
	}
}

func ourRowSet(rs rowSetSpec) bigtable.RowSet {
	switch rs.kind {
	case rsSingle:
		return bigtable.SingleRow(rs.keys[0])
	case rsList:
		return bigtable.RowList(append([]string{}, rs.keys...))
	case rsRange:
		return ourRange(rs.ranges[0])
	default:
		l := make(bigtable.RowRangeList, len(rs.ranges))
		for i, r := range rs.ranges {
			l[i] = ourRange(r)
		}
		return l
	}
}

func ourReadOpts(o op) []bigtable.ReadOption {
	var opts []bigtable.ReadOption
	if o.filter != nil {
		opts = append(opts, bigtable.RowFilter(ourFilter(o.filter)))
	}
	if o.limit != 0 {
		opts = append(opts, bigtable.LimitRows(o.limit))
	}
	return opts
}

// ourRow reduces one of our Rows; an empty Row gives a rowOut without cells.
func ourRow(r bigtable.Row) rowOut {
	fams := map[string][]item{}
	for f, items := range r {
		for _, it := range items {
			fams[f] = append(fams[f], item{row: it.Row, column: it.Column, ts: int64(it.Timestamp), value: it.Value})
		}
	}
	return normalizeRow(r.Key(), fams)
}

// ourErrResult is errResult, stricter: the only errors the generator
// provokes are writes to an undeclared family, increments of values that are
// not 8 bytes long and empty mutations, and our store must say so with its
// sentinels (errors.Is). Any other error shows up as a mismatch with its text.
func ourErrResult(err error) result {
	r := errResult(err)
	if !errors.Is(err, bigtable.ErrUnknownFamily) && !errors.Is(err, bigtable.ErrInvalidIncrement) && !errors.Is(err, bigtable.ErrInvalidMutation) {
		r.Rows = []rowOut{{Key: "!error matching none of ErrUnknownFamily, ErrInvalidIncrement, ErrInvalidMutation: " + err.Error()}}
	}
	return r
}

func (t *ourTable) exec(ctx context.Context, o op) result {
	tbl := t.s.table(t.name)
	errResult := ourErrResult
	switch o.kind {
	case opApply:
		if err := tbl.Apply(ctx, o.row, ourMutation(o.muts)); err != nil {
			return errResult(err)
		}
		return result{}
	case opCond:
		var cond bigtable.Filter
		if o.cond != nil {
			cond = ourFilter(o.cond)
		}
		var matched bool
		m := bigtable.NewCondMutation(cond, ourMutation(o.mtrue), ourMutation(o.mfalse))
		if err := tbl.Apply(ctx, o.row, m, bigtable.GetCondMutationResult(&matched)); err != nil {
			return errResult(err)
		}
		return result{Matched: fmt.Sprint(matched)}
	case opBulk:
		muts := make([]*bigtable.Mutation, len(o.bulkMuts))
		for i, ms := range o.bulkMuts {
			muts[i] = ourMutation(ms)
		}
		errs, err := tbl.ApplyBulk(ctx, append([]string{}, o.bulkRows...), muts)
		if err != nil {
			return errResult(err)
		}
		res := result{BulkErrs: make([]bool, len(o.bulkRows))}
		if errs != nil && len(errs) != len(o.bulkRows) {
			return result{Err: true, errText: fmt.Sprintf("ApplyBulk returned %d errors for %d rows", len(errs), len(o.bulkRows))}
		}
		for i, e := range errs {
			if e != nil {
				res.BulkErrs[i] = true
				res.errText += fmt.Sprintf("[%d] %v; ", i, e)
				res.Rows = append(res.Rows, errResult(e).Rows...)
			}
		}
		return res
	case opRMW:
		m := bigtable.NewReadModifyWrite()
		for _, r := range o.rules {
			if r.increment {
				m.Increment(r.fam, r.qual, r.delta)
			} else {
				m.AppendValue(r.fam, r.qual, []byte(r.value))
			}
		}
		row, err := tbl.ApplyReadModifyWrite(ctx, o.row, m)
		if err != nil {
			return errResult(err)
		}
		var res result
		if len(row) > 0 {
			res.Rows = []rowOut{ourRow(row)}
		}
		return res
	case opReadRow:
		row, err := tbl.ReadRow(ctx, o.row, ourReadOpts(o)...)
		if err != nil {
			return errResult(err)
		}
		var res result
		if len(row) > 0 {
			res.Rows = []rowOut{ourRow(row)}
		}
		return res
	case opReadRows:
		var res result
		keep := func(r bigtable.Row) bool {
			if len(r) > 0 {
				res.Rows = append(res.Rows, ourRow(r))
			} else {
				// An empty Row handed to the callback is a bug worth seeing.
				res.Rows = append(res.Rows, rowOut{Key: "!empty row " + r.Key()})
			}
			return o.stopAfter == 0 || len(res.Rows) < o.stopAfter
		}
		if o.iter {
			for r, err := range tbl.Rows(ctx, ourRowSet(o.rs), ourReadOpts(o)...) {
				if err != nil {
					return errResult(err)
				}
				if !keep(r) {
					break
				}
			}
			return res
		}
		if err := tbl.ReadRows(ctx, ourRowSet(o.rs), keep, ourReadOpts(o)...); err != nil {
			return errResult(err)
		}
		return res
	case opReopen:
		if err := t.s.reopen(); err != nil {
			return errResult(err)
		}
		return result{}
	}
	panic(fmt.Sprintf("difftest: unknown op kind %d", o.kind))
}

// TestDifferential runs random sequences of mutations and reads on our store
// and on bttest and requires identical results. See doc.go for what is
// compared and what is deliberately left out.
func TestDifferential(t *testing.T) {
	r := newReference(t)
	s := newOurStore(t)
	runMany(t, pair{want: refFactory(r), got: s.factory(), wantLabel: "bttest", gotLabel: "ours"}, 500)
}

// TestDifferentialReadAhead runs the same sequences on a store that reads
// ahead after the first row of every multi-row read, so that each ReadRows
// and Rows of the sequences, with its filters, limits and early stops,
// goes through the read-ahead pipeline (the tables are too small to reach
// the default threshold).
func TestDifferentialReadAhead(t *testing.T) {
	r := newReference(t)
	s := newOurStore(t, bigtable.WithReadAhead(1))
	runMany(t, pair{want: refFactory(r), got: s.factory(), wantLabel: "bttest", gotLabel: "ours, reading ahead"}, 250)
}
