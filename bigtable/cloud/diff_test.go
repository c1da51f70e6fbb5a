package cloud_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/bigtabletest"
)

// diffSeqs is how many random sequences TestDiffBadger runs.
var diffSeqs = flag.Int("cloud.diffseqs", 40, "random sequences for TestDiffBadger")

// TestDiffBadger applies random mutations (plain, conditional, bulk) to
// package bigtable's Badger store and, through this adapter, to the
// emulator, and requires every read (random row sets, filters and limits)
// to return the same rows. It tests the translation of bigtable's values
// more widely than the conformance cases; bigtable/difftest compares the
// stores themselves in depth.
//
// Left out on purpose: ServerTime and read-modify-write (the stores' clocks
// and granularities differ), RowSampleFilter (random), and positional
// filters (LatestN, CellsPerRow*) after an InterleaveFilters (the order of
// an interleave's output is each store's own). Cells are compared as a
// multiset per row.
func TestDiffBadger(t *testing.T) {
	ctx := t.Context()
	db, err := bigtable.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	badger := bigtabletest.Adapt(db, db.Open)
	emu := openEmulator(t)
	cloudStore := bigtabletest.Adapt(emu, emu.Open)
	for seq := range *diffSeqs {
		table := fmt.Sprintf("t%d", seq)
		stores := []bigtabletest.Store{badger, cloudStore}
		for _, st := range stores {
			mustDo(t, st.CreateTable(ctx, table))
			mustDo(t, st.CreateColumnFamily(ctx, table, "A"))
			mustDo(t, st.CreateColumnFamily(ctx, table, "B"))
		}
		g := &gen{r: rand.New(rand.NewPCG(uint64(seq), 8))}
		var log []string
		for step := range 30 {
			op := g.op()
			log = append(log, op.desc)
			got := make([]string, len(stores))
			for i, st := range stores {
				got[i] = op.run(ctx, st.Table(table))
			}
			if got[0] != got[1] {
				t.Fatalf("sequence %d step %d: stores differ\nops:\n  %s\nbadger:   %s\nemulator: %s",
					seq, step, strings.Join(log, "\n  "), got[0], got[1])
			}
		}
		for _, st := range stores {
			mustDo(t, st.DeleteTable(ctx, table))
		}
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// gen makes random operations.
type gen struct{ r *rand.Rand }

type diffOp struct {
	desc string
	run  func(ctx context.Context, t bigtabletest.Table) string
}

var (
	diffRows  = []string{"a", "ab", "b", "b\x00", "c", "\xff"}
	diffQuals = []string{"", "q", "r", "\x00"}
	diffVals  = []string{"", "v", "w", "vv", "x\xff"}
)

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }
func (g *gen) ts() bigtable.Timestamp { return bigtable.Timestamp(1+g.r.IntN(6)) * 1000 }
func (g *gen) fam() string            { return g.pick([]string{"A", "B"}) }

func (g *gen) op() diffOp {
	switch n := g.r.IntN(10); {
	case n < 4:
		row, m := g.pick(diffRows), g.mutation(true)
		return diffOp{fmt.Sprintf("Apply(%q, %s)", row, m.desc), func(ctx context.Context, t bigtabletest.Table) string {
			return errText(t.Apply(ctx, row, m.m))
		}}
	case n < 5:
		row := g.pick(diffRows)
		cond, cdesc := g.filter(2, false), ""
		if g.r.IntN(4) == 0 {
			cond = nil
		}
		if cond != nil {
			cdesc = cond.String()
		}
		// NB: no undeclared family in the branches: bigtable refuses the
		// mutation, the emulator only looks at the branch it applies.
		mt, mf := g.mutation(false), g.mutation(false)
		return diffOp{fmt.Sprintf("Apply(%q, Cond(%s, %s, %s))", row, cdesc, mt.desc, mf.desc), func(ctx context.Context, t bigtabletest.Table) string {
			var matched bool
			err := t.Apply(ctx, row, bigtable.NewCondMutation(cond, mt.m, mf.m), bigtable.GetCondMutationResult(&matched))
			return fmt.Sprintf("%v %s", matched, errText(err))
		}}
	case n < 6:
		k := 1 + g.r.IntN(3)
		rows := make([]string, k)
		muts := make([]*bigtable.Mutation, k)
		var descs []string
		for i := range k {
			rows[i] = g.pick(diffRows)
			mm := g.mutation(true)
			muts[i] = mm.m
			descs = append(descs, fmt.Sprintf("%q: %s", rows[i], mm.desc))
		}
		return diffOp{"ApplyBulk(" + strings.Join(descs, ", ") + ")", func(ctx context.Context, t bigtabletest.Table) string {
			errs, err := t.ApplyBulk(ctx, rows, muts)
			out := errText(err)
			for _, e := range errs {
				out += " " + fmt.Sprint(e != nil)
			}
			return out
		}}
	default:
		rs, rsDesc := g.rowSet()
		var opts []bigtable.ReadOption
		desc := "ReadRows(" + rsDesc
		if g.r.IntN(3) > 0 {
			f := g.filter(3, true)
			opts = append(opts, bigtable.RowFilter(f))
			desc += ", " + f.String()
		}
		if g.r.IntN(3) == 0 {
			n := int64(g.r.IntN(4))
			opts = append(opts, bigtable.LimitRows(n))
			desc += fmt.Sprintf(", LimitRows(%d)", n)
		}
		return diffOp{desc + ")", func(ctx context.Context, t bigtabletest.Table) string {
			var rows []string
			err := t.ReadRows(ctx, rs, func(r bigtable.Row) bool {
				rows = append(rows, renderRow(r))
				return true
			}, opts...)
			return strings.Join(rows, " | ") + " " + errText(err)
		}}
	}
}

type genMutation struct {
	m    *bigtable.Mutation
	desc string
}

func (g *gen) mutation(badFamily bool) genMutation {
	m := bigtable.NewMutation()
	var descs []string
	for range 1 + g.r.IntN(3) {
		switch n := g.r.IntN(10); {
		case n < 6:
			f, q, ts, v := g.fam(), g.pick(diffQuals), g.ts(), g.pick(diffVals)
			if badFamily && len(descs) == 0 && g.r.IntN(20) == 0 {
				// An undeclared family: both must refuse the mutation. It
				// comes first, as the emulator writes the operations before
				// it (bigtabletest.Features.PartialWriteOnError).
				f = "nope"
			}
			m.Set(f, q, ts, []byte(v))
			descs = append(descs, fmt.Sprintf("Set(%s:%q@%d=%q)", f, q, ts, v))
		case n < 7:
			f, q := g.fam(), g.pick(diffQuals)
			m.DeleteCellsInColumn(f, q)
			descs = append(descs, fmt.Sprintf("DeleteCellsInColumn(%s:%q)", f, q))
		case n < 8:
			f, q, start := g.fam(), g.pick(diffQuals), g.ts()
			end := bigtable.Timestamp(0)
			if g.r.IntN(2) == 0 {
				end = start + g.ts()
			}
			m.DeleteTimestampRange(f, q, start, end)
			descs = append(descs, fmt.Sprintf("DeleteTimestampRange(%s:%q, %d, %d)", f, q, start, end))
		case n < 9:
			f := g.fam()
			m.DeleteCellsInFamily(f)
			descs = append(descs, fmt.Sprintf("DeleteCellsInFamily(%s)", f))
		default:
			m.DeleteRow()
			descs = append(descs, "DeleteRow()")
		}
	}
	return genMutation{m, strings.Join(descs, "; ")}
}

// filter returns a random filter of at most depth levels. positional
// allows LatestN and CellsPerRow filters at the end of a chain.
func (g *gen) filter(depth int, positional bool) bigtable.Filter {
	if depth > 1 && g.r.IntN(3) == 0 {
		switch g.r.IntN(3) {
		case 0:
			subs := []bigtable.Filter{g.filter(depth-1, false), g.filter(depth-1, false)}
			if positional && g.r.IntN(2) == 0 {
				subs = append(subs, g.positional())
			}
			return bigtable.ChainFilters(subs...)
		case 1:
			return bigtable.InterleaveFilters(g.filter(depth-1, false), g.filter(depth-1, false))
		default:
			var branches [2]bigtable.Filter
			for i := range branches {
				if g.r.IntN(4) > 0 {
					branches[i] = g.filter(depth-1, false)
				}
			}
			return bigtable.ConditionFilter(g.filter(depth-1, false), branches[0], branches[1])
		}
	}
	if positional && g.r.IntN(4) == 0 {
		return g.positional()
	}
	switch g.r.IntN(10) {
	case 0:
		return bigtable.FamilyFilter(g.pick([]string{"A", "B", "A|B", ".", "C"}))
	case 1:
		return bigtable.ColumnFilter(g.pick([]string{"q", "r|", "", ".*", "\\x00", "[q-z]"}))
	case 2:
		return bigtable.ValueFilter(g.pick([]string{"v", "w.*", "", "x\\xff", "v+"}))
	case 3:
		var lo, hi []byte
		if g.r.IntN(3) > 0 {
			lo = []byte(g.pick(diffVals))
		}
		if g.r.IntN(3) > 0 {
			hi = []byte(g.pick(diffVals))
		}
		return bigtable.ValueRangeFilter(lo, hi)
	case 4:
		return bigtable.ColumnRangeFilter(g.fam(), g.pick(diffQuals), g.pick(diffQuals))
	case 5:
		start, end := bigtable.Timestamp(0), bigtable.Timestamp(0)
		if g.r.IntN(2) == 0 {
			start = g.ts()
		}
		if g.r.IntN(2) == 0 {
			end = start + g.ts()
		}
		return bigtable.TimestampRangeFilterMicros(start, end)
	case 6:
		return bigtable.StripValueFilter()
	case 7:
		return bigtable.RowKeyFilter(g.pick([]string{"a.*", "b\\x00", ".", "\\xff", "c|ab"}))
	case 8:
		return bigtable.PassAllFilter()
	default:
		return bigtable.BlockAllFilter()
	}
}

func (g *gen) positional() bigtable.Filter {
	n := 1 + g.r.IntN(3)
	switch g.r.IntN(3) {
	case 0:
		return bigtable.LatestNFilter(n)
	case 1:
		// NB: one family only; the stores order families differently.
		return bigtable.ChainFilters(bigtable.FamilyFilter("A"), bigtable.CellsPerRowLimitFilter(n))
	}
	return bigtable.ChainFilters(bigtable.FamilyFilter("A"), bigtable.CellsPerRowOffsetFilter(n-1))
}

func (g *gen) rowRange() (bigtable.RowRange, string) {
	a, b := g.pick(append(diffRows, "")), g.pick(append(diffRows, "", "aa", "bz"))
	switch g.r.IntN(8) {
	case 0:
		return bigtable.NewRange(a, b), fmt.Sprintf("NewRange(%q, %q)", a, b)
	case 1:
		return bigtable.NewOpenRange(a, b), fmt.Sprintf("NewOpenRange(%q, %q)", a, b)
	case 2:
		return bigtable.NewClosedRange(a, b), fmt.Sprintf("NewClosedRange(%q, %q)", a, b)
	case 3:
		return bigtable.NewOpenClosedRange(a, b), fmt.Sprintf("NewOpenClosedRange(%q, %q)", a, b)
	case 4:
		return bigtable.PrefixRange(a), fmt.Sprintf("PrefixRange(%q)", a)
	case 5:
		return bigtable.InfiniteRange(a), fmt.Sprintf("InfiniteRange(%q)", a)
	case 6:
		return bigtable.InfiniteReverseRange(b), fmt.Sprintf("InfiniteReverseRange(%q)", b)
	}
	return bigtable.NewClosedOpenRange(a, b), fmt.Sprintf("NewClosedOpenRange(%q, %q)", a, b)
}

func (g *gen) rowSet() (bigtable.RowSet, string) {
	switch g.r.IntN(3) {
	case 0:
		var l bigtable.RowList
		for range g.r.IntN(4) {
			l = append(l, g.pick(append(diffRows, "", "zz")))
		}
		return l, fmt.Sprintf("RowList%q", []string(l))
	case 1:
		return g.rowRange()
	}
	var l bigtable.RowRangeList
	var descs []string
	for range 1 + g.r.IntN(3) {
		r, d := g.rowRange()
		l = append(l, r)
		descs = append(descs, d)
	}
	return l, "RowRangeList{" + strings.Join(descs, ", ") + "}"
}

// renderRow renders a row's key and its cells as a sorted multiset.
func renderRow(r bigtable.Row) string {
	var cells []string
	for _, items := range r {
		for _, it := range items {
			cells = append(cells, fmt.Sprintf("%q@%d=%q", it.Column, it.Timestamp, it.Value))
		}
	}
	slices.Sort(cells)
	return fmt.Sprintf("%q: %s", r.Key(), strings.Join(cells, ","))
}

// errText reduces an error to whether there was one: the stores word their
// errors differently.
func errText(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}
