package difftest

import (
	"context"
	"flag"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	flagN    = flag.Int("difftest.n", 0, "number of random sequences to run (default: TestDifferential 500, TestReferenceSelfConsistency 100; a tenth with -short)")
	flagSeed = flag.Int64("difftest.seed", 0, "run only the sequence with this seed (as printed by a failure)")
	flagOps  = flag.Int("difftest.ops", 60, "maximum number of ops per sequence")
	flagBase = flag.Int64("difftest.base", 1, "first seed; sequence i uses seed base+i")

	flagCrashSeed = flag.Int64("difftest.crashseed", 0, "seed of TestCrashDurability's kill points (0: a new one, printed by the test)")
)

// tableUnderTest is one fresh table in one store.
type tableUnderTest interface {
	exec(ctx context.Context, o op) result
	drop(ctx context.Context)
}

// factory makes a fresh, empty table with the test's families declared.
type factory func(ctx context.Context, name string) (tableUnderTest, error)

var tableSeq atomic.Int64

func freshName(prefix string) string { return fmt.Sprintf("%s%d", prefix, tableSeq.Add(1)) }

var cmpOpts = []cmp.Option{cmpopts.IgnoreUnexported(result{}), cmpopts.EquateEmpty()}

// stats counts what the reference answered, to show that the sequences
// exercise something: reads that return cells, errors, both predicate
// outcomes.
type stats struct {
	ops, reads, readsWithRows, cells, errs, matched, unmatched, bulkErrs, rmw, reopens int
}

func (s *stats) add(o op, r result) {
	s.ops++
	switch {
	case r.Err:
		s.errs++
	case r.Matched == "true":
		s.matched++
	case r.Matched == "false":
		s.unmatched++
	}
	for _, b := range r.BulkErrs {
		if b {
			s.bulkErrs++
		}
	}
	switch o.kind {
	case opReadRow, opReadRows:
		s.reads++
		if len(r.Rows) > 0 {
			s.readsWithRows++
		}
		for _, row := range r.Rows {
			s.cells += len(row.Cells)
		}
	case opRMW:
		s.rmw++
	case opReopen:
		s.reopens++
	}
}

func (s stats) String() string {
	return fmt.Sprintf("%d ops: %d reads (%d returned rows, %d cells in all), %d errors, "+
		"conditions matched/unmatched %d/%d, %d failed bulk entries, %d ReadModifyWrites, %d reopens",
		s.ops, s.reads, s.readsWithRows, s.cells, s.errs, s.matched, s.unmatched, s.bulkErrs, s.rmw, s.reopens)
}

// mismatch describes the first op on which the two stores disagreed.
type mismatch struct {
	ops        []op // the op log, ending with the failing op
	want, got  result
	wantLabel  string
	gotLabel   string
	diff       string
	replays    int
	shrunkFrom int
}

func (m *mismatch) report(test string, seed int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %s and %s disagree on op %d", seed, m.wantLabel, m.gotLabel, len(m.ops)-1)
	if m.shrunkFrom > 0 {
		fmt.Fprintf(&b, " (op log shrunk from %d to %d ops in %d replays)", m.shrunkFrom, len(m.ops), m.replays)
	}
	fmt.Fprintf(&b, "\nreplay: go test -race -run '^%s$' ./bigtable/difftest/ -difftest.seed=%d -difftest.ops=%d\n", test, seed, *flagOps)
	b.WriteString("families f, ff, g are declared (u is not); far+N means 4e15+N µs; NOW a wall-clock timestamp;\n")
	b.WriteString("bigValue is strings.Repeat(\"v\", 299)+\"x\"\n")
	for i, o := range m.ops {
		fmt.Fprintf(&b, "  %2d: %s\n", i, o)
	}
	fmt.Fprintf(&b, "%s: %s\n%s: %s\n", m.wantLabel, fmtResult(m.want), m.gotLabel, fmtResult(m.got))
	fmt.Fprintf(&b, "diff (-%s +%s):\n%s", m.wantLabel, m.gotLabel, m.diff)
	return b.String()
}

func fmtResult(r result) string {
	var b strings.Builder
	if r.Err {
		fmt.Fprintf(&b, "error %q", r.errText)
		return b.String()
	}
	if r.Matched != "" {
		fmt.Fprintf(&b, "matched=%s ", r.Matched)
	}
	if r.BulkErrs != nil {
		fmt.Fprintf(&b, "bulk errors %v %s", r.BulkErrs, r.errText)
	}
	b.WriteString("[")
	for i, row := range r.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q{", row.Key)
		for j, c := range row.Cells {
			if j > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s:%q@%s=%s", c.Fam, c.Qual, tsString(c.TS), valueString(c.Value))
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return b.String()
}

// pair is the two stores being compared: want is the reference.
type pair struct {
	want, got           factory
	wantLabel, gotLabel string
}

// open makes a fresh table on each side.
func (p pair) open(ctx context.Context) (w, g tableUnderTest, err error) {
	if w, err = p.want(ctx, freshName("t")); err != nil {
		return nil, nil, err
	}
	if g, err = p.got(ctx, freshName("t")); err != nil {
		w.drop(ctx)
		return nil, nil, err
	}
	return w, g, nil
}

// step runs one op on both sides. For ReadModifyWrite it first reads the row
// from the reference and adapts the op (prepareRMW); with strict, an op that
// would need adapting is refused (ok false), which the shrinker uses to
// discard candidates that are not deterministic.
func step(ctx context.Context, w, g tableUnderTest, o op, strict bool) (done op, want, got result, ok bool) {
	refRow := func(key string) rowOut {
		cur := w.exec(ctx, op{kind: opReadRow, row: key})
		if len(cur.Rows) > 0 {
			return cur.Rows[0]
		}
		return rowOut{}
	}
	if o.kind == opRMW {
		p, keep := prepareRMW(o, refRow(o.row))
		if !keep || (strict && !reflect.DeepEqual(p, o)) {
			return o, result{}, result{}, false
		}
		o = p
	}
	if keys := serverTimeRows(o); len(keys) > 0 {
		rows := map[string]rowOut{}
		for _, k := range keys {
			rows[k] = refRow(k)
		}
		p := prepareServerTime(o, rows)
		if strict && !reflect.DeepEqual(p, o) {
			return o, result{}, result{}, false
		}
		o = p
	}
	return o, w.exec(ctx, o), safeExec(ctx, g, o), true
}

// safeExec turns a panic in the store under test into an error result, so
// that it is reported with its seed and op log like any other mismatch.
func safeExec(ctx context.Context, t tableUnderTest, o op) (res result) {
	defer func() {
		if v := recover(); v != nil {
			res = result{Err: true, Rows: []rowOut{{Key: fmt.Sprintf("PANIC: %v", v)}}, errText: fmt.Sprintf("panic: %v", v)}
		}
	}()
	return t.exec(ctx, o)
}

// fullScan is the op that ends every sequence: the whole table, unfiltered.
var fullScan = op{kind: opReadRows, rs: rowSetSpec{kind: rsRange, ranges: []rangeSpec{{kind: rInfinite}}}}

// runSeed generates and runs one sequence. It returns nil, or the first
// mismatch with its op log shrunk to a minimal failing one, and the number of
// ops executed.
func runSeed(ctx context.Context, t testing.TB, p pair, seed int64, maxOps int, st *stats) *mismatch {
	t.Helper()
	w, g, err := p.open(ctx)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer w.drop(ctx)
	defer g.drop(ctx)
	gn := newGen(seed)
	n := 1 + gn.r.Intn(maxOps)
	var log []op
	for i := 0; i <= n; i++ {
		o := fullScan
		if i < n {
			o = gn.op()
		}
		done, want, got, ok := step(ctx, w, g, o, false)
		if !ok {
			continue
		}
		log = append(log, done)
		st.add(done, want)
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			m := &mismatch{ops: log, want: want, got: got, wantLabel: p.wantLabel, gotLabel: p.gotLabel, diff: diff}
			shrink(ctx, t, p, m)
			return m
		}
	}
	return nil
}

// replay runs ops on fresh tables and reports the first mismatch, if any.
// valid is false when an op is refused by step in strict mode.
func replay(ctx context.Context, t testing.TB, p pair, ops []op) (m *mismatch, valid bool) {
	t.Helper()
	w, g, err := p.open(ctx)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	defer w.drop(ctx)
	defer g.drop(ctx)
	for i, o := range ops {
		_, want, got, ok := step(ctx, w, g, o, true)
		if !ok {
			return nil, false
		}
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			return &mismatch{ops: ops[:i+1], want: want, got: got, wantLabel: p.wantLabel, gotLabel: p.gotLabel, diff: diff}, true
		}
	}
	return nil, true
}

// shrink reduces m.ops to a small log that still fails (delta debugging:
// drop chunks of halving size, then single ops, keeping any candidate that
// still disagrees somewhere). The last op of a candidate is kept.
func shrink(ctx context.Context, t testing.TB, p pair, m *mismatch) {
	t.Helper()
	const budget = 400
	orig := len(m.ops)
	replays := 0
	try := func(cand []op) bool {
		if replays >= budget || len(cand) == 0 {
			return false
		}
		replays++
		nm, valid := replay(ctx, t, p, cand)
		if !valid || nm == nil {
			return false
		}
		*m = *nm
		return true
	}
	for chunk := len(m.ops) / 2; chunk >= 1; {
		progress := false
		for start := 0; start+chunk <= len(m.ops)-1; {
			cand := append(append([]op{}, m.ops[:start]...), m.ops[start+chunk:]...)
			if try(cand) {
				progress = true
				continue // same start, shorter log
			}
			start += chunk
		}
		if !progress {
			chunk /= 2
		}
		if replays >= budget {
			break
		}
	}
	// Then simplify the ops themselves: fewer mutations, rules, bulk
	// entries, ranges, smaller filter trees.
	for i := 0; i < len(m.ops) && replays < budget; i++ {
		for _, c := range opSimplifications(m.ops[i]) {
			cand := append([]op{}, m.ops...)
			cand[i] = c
			if try(cand) {
				i-- // simplify the same op further
				break
			}
		}
	}
	m.replays, m.shrunkFrom = replays, orig
	if len(m.ops) == orig {
		m.shrunkFrom = 0
	}
}

func sequences(normal int) int {
	if *flagN > 0 {
		return *flagN
	}
	if testing.Short() {
		return normal / 10
	}
	return normal
}

// runMany runs the configured number of sequences (normal by default) on p
// and fails on the first mismatch with a full report.
func runMany(t *testing.T, p pair, normal int) {
	ctx := context.Background()
	var st stats
	if *flagSeed != 0 {
		if m := runSeed(ctx, t, p, *flagSeed, *flagOps, &st); m != nil {
			t.Fatal(m.report(t.Name(), *flagSeed))
		}
		t.Logf("seed %d: %v; all agree", *flagSeed, st)
		return
	}
	count := sequences(normal)
	for i := range count {
		seed := *flagBase + int64(i)
		if m := runSeed(ctx, t, p, seed, *flagOps, &st); m != nil {
			t.Fatalf("after %d sequences (%d ops) agreed:\n%s", i, st.ops, m.report(t.Name(), seed))
		}
	}
	t.Logf("%d sequences, %v; %s and %s agree", count, st, p.wantLabel, p.gotLabel)
}

func refFactory(r *reference) factory {
	return func(ctx context.Context, name string) (tableUnderTest, error) {
		return r.newTable(ctx, name)
	}
}

// TestReferenceSelfConsistency runs the generator against two bttest tables
// in one server. It proves the harness itself: every exclusion listed in
// doc.go is needed for bttest to agree with itself, and this test fails if
// the generator produces an op whose reference answer depends on map order,
// sort instability or timing.
func TestReferenceSelfConsistency(t *testing.T) {
	r := newReference(t)
	runMany(t, pair{want: refFactory(r), got: refFactory(r), wantLabel: "bttest", gotLabel: "bttest-again"}, 100)
}
