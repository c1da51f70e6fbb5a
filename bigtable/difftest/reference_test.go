package difftest

import (
	"context"
	"fmt"
	"testing"

	"cloud.google.com/go/bigtable"
	"cloud.google.com/go/bigtable/bttest"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// reference is Google's in-memory Cloud Bigtable fake, bttest, reached
// through the real Cloud Bigtable client over loopback gRPC.
type reference struct {
	srv  *bttest.Server // nil when the client reaches another server
	conn *grpc.ClientConn
	// keepTables makes drop a no-op (see ourTable.drop for why).
	keepTables bool
	admin      *bigtable.AdminClient
	client     *bigtable.Client
}

func newReference(t testing.TB) *reference {
	t.Helper()
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatalf("bttest.NewServer: %v", err)
	}
	t.Cleanup(srv.Close)
	r := newClientAt(t, srv.Addr)
	r.srv = srv
	return r
}

// newClientAt is the real Cloud Bigtable client connected to the server at
// addr: bttest for the reference, or bigtable/server over our store.
func newClientAt(t testing.TB, addr string) *reference {
	t.Helper()
	ctx := context.Background()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("grpc.NewClient(%s): %v", addr, err)
	}
	opts := []option.ClientOption{option.WithGRPCConn(conn), option.WithoutAuthentication()}
	admin, err := bigtable.NewAdminClient(ctx, "proj", "inst", opts...)
	if err != nil {
		t.Fatalf("bigtable.NewAdminClient: %v", err)
	}
	client, err := bigtable.NewClientWithConfig(ctx, "proj", "inst",
		bigtable.ClientConfig{MetricsProvider: bigtable.NoopMetricsProvider{}}, opts...)
	if err != nil {
		t.Fatalf("bigtable.NewClientWithConfig: %v", err)
	}
	r := &reference{conn: conn, admin: admin, client: client}
	t.Cleanup(func() {
		r.client.Close()
		r.admin.Close()
		r.conn.Close()
	})
	return r
}

// refTable is one bttest table with the test's families declared.
type refTable struct {
	ref  *reference
	name string
	tbl  *bigtable.Table
}

func (r *reference) newTable(ctx context.Context, name string) (*refTable, error) {
	if err := r.admin.CreateTable(ctx, name); err != nil {
		return nil, fmt.Errorf("reference: create table %q: %w", name, err)
	}
	for _, f := range families {
		if err := r.admin.CreateColumnFamily(ctx, name, f); err != nil {
			return nil, fmt.Errorf("reference: create family %q: %w", f, err)
		}
	}
	return &refTable{ref: r, name: name, tbl: r.client.Open(name)}, nil
}

func (t *refTable) drop(ctx context.Context) {
	if !t.ref.keepTables {
		_ = t.ref.admin.DeleteTable(ctx, t.name)
	}
}

func btMutation(ms []mutOp) *bigtable.Mutation {
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

func btFilter(f *filterSpec) bigtable.Filter {
	switch f.kind {
	case fChain, fInterleave:
		subs := make([]bigtable.Filter, len(f.subs))
		for i, s := range f.subs {
			subs[i] = btFilter(s)
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
				sub[i] = btFilter(s)
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

func btRange(r rangeSpec) bigtable.RowRange {
	switch r.kind {
	case rNew:
		return bigtable.NewRange(r.a, r.b)
	case rPrefix:
		return bigtable.PrefixRange(r.a)
	default:
		return bigtable.InfiniteRange(r.a)
	}
}

func btRowSet(rs rowSetSpec) bigtable.RowSet {
	switch rs.kind {
	case rsSingle:
		return bigtable.SingleRow(rs.keys[0])
	case rsList:
		return bigtable.RowList(append([]string{}, rs.keys...))
	case rsRange:
		return btRange(rs.ranges[0])
	default:
		l := make(bigtable.RowRangeList, len(rs.ranges))
		for i, r := range rs.ranges {
			l[i] = btRange(r)
		}
		return l
	}
}

func btReadOpts(o op) []bigtable.ReadOption {
	var opts []bigtable.ReadOption
	if o.filter != nil {
		opts = append(opts, bigtable.RowFilter(btFilter(o.filter)))
	}
	if o.limit != 0 {
		opts = append(opts, bigtable.LimitRows(o.limit))
	}
	return opts
}

func btRow(r bigtable.Row) (rowOut, bool) {
	if len(r) == 0 {
		return rowOut{}, false
	}
	fams := map[string][]item{}
	for f, items := range r {
		for _, it := range items {
			fams[f] = append(fams[f], item{row: it.Row, column: it.Column, ts: int64(it.Timestamp), value: it.Value})
		}
	}
	return normalizeRow(r.Key(), fams), true
}

func errResult(err error) result { return result{Err: true, errText: err.Error()} }

// exec runs o on the reference.
func (t *refTable) exec(ctx context.Context, o op) result {
	switch o.kind {
	case opApply:
		if err := t.tbl.Apply(ctx, o.row, btMutation(o.muts)); err != nil {
			return errResult(err)
		}
		return result{}
	case opCond:
		var cond bigtable.Filter
		if o.cond != nil {
			cond = btFilter(o.cond)
		}
		var matched bool
		m := bigtable.NewCondMutation(cond, btMutation(o.mtrue), btMutation(o.mfalse))
		if err := t.tbl.Apply(ctx, o.row, m, bigtable.GetCondMutationResult(&matched)); err != nil {
			return errResult(err)
		}
		return result{Matched: fmt.Sprint(matched)}
	case opBulk:
		muts := make([]*bigtable.Mutation, len(o.bulkMuts))
		for i, ms := range o.bulkMuts {
			muts[i] = btMutation(ms)
		}
		errs, err := t.tbl.ApplyBulk(ctx, append([]string{}, o.bulkRows...), muts)
		if err != nil {
			return errResult(err)
		}
		res := result{BulkErrs: make([]bool, len(o.bulkRows))}
		for i, e := range errs {
			if e != nil {
				res.BulkErrs[i] = true
				res.errText += fmt.Sprintf("[%d] %v; ", i, e)
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
		row, err := t.tbl.ApplyReadModifyWrite(ctx, o.row, m)
		if err != nil {
			return errResult(err)
		}
		var res result
		if ro, ok := btRow(row); ok {
			res.Rows = []rowOut{ro}
		}
		return res
	case opReadRow:
		row, err := t.tbl.ReadRow(ctx, o.row, btReadOpts(o)...)
		if err != nil {
			return errResult(err)
		}
		var res result
		if ro, ok := btRow(row); ok {
			res.Rows = []rowOut{ro}
		}
		return res
	case opReadRows:
		var res result
		err := t.tbl.ReadRows(ctx, btRowSet(o.rs), func(r bigtable.Row) bool {
			if ro, ok := btRow(r); ok {
				res.Rows = append(res.Rows, ro)
			}
			return o.stopAfter == 0 || len(res.Rows) < o.stopAfter
		}, btReadOpts(o)...)
		if err != nil {
			return errResult(err)
		}
		return res
	case opReopen:
		return result{}
	}
	panic(fmt.Sprintf("difftest: unknown op kind %d", o.kind))
}
