package difftest

import (
	"encoding/binary"
	"math/rand"
	"strings"
)

// Small alphabets, so that operations collide: the same rows, columns and
// timestamps come up again and again. Row keys include keys that are prefixes
// of each other ("a" < "ab" < "abc"; "b" < "b\x00" < "b\x00a") and the bytes
// 0x00 and 0xFF, which bttest accepts in any position (it only rejects the
// empty key).
var (
	rowAlphabet = []string{"a", "ab", "abc", "b", "b\x00", "b\x00a", "ba", "\x00", "\xff", "a\xff", "\xff\xff"}
	// Bounds for row ranges: the rows plus "" (unbounded) and keys between them.
	boundAlphabet  = append([]string{"", "a\x00", "aa", "c"}, rowAlphabet...)
	prefixAlphabet = []string{"", "a", "ab", "b", "b\x00", "\x00", "\xff", "a\xff"}

	families = []string{"f", "ff", "g"}
	// unknownFamily is never declared: writing to it must fail in both stores.
	unknownFamily = "u"

	qualAlphabet  = []string{"", "a", "ab", "b", "\x00", "\xff", "a\x00"}
	valueAlphabet = []string{"", "x", "xy", "y", "\x00", "\xff", "\xc3\xa9", be64(1), be64(-1), be64(7), bigValue}
	// bigValue is larger than our store's default value threshold (256
	// bytes), so Badger keeps it in its value log and reads go through the
	// lazy value path.
	bigValue = strings.Repeat("v", 299) + "x"

	// Cell timestamps: small ones (1970), 0 included, and future ones (see farBase).
	setTsAlphabet = []int64{0, 1000, 2000, 3000, 5000, 8000, farBase, farBase + 1000, farBase + 2000}
	// Range bounds for DeleteTimestampRange and TimestampRangeFilterMicros;
	// 0 means unbounded. None falls near the wall clock (see nowMarker).
	boundTsAlphabet = []int64{0, 1000, 2000, 3000, 4000, 6000, 9000, farBase, farBase + 1000, farBase + 3000}

	// Regular expressions, RE2 syntax, matched against whole strings of raw
	// bytes. `\xff` (escaped) and "\xff" (a raw byte in the pattern) both mean
	// the byte 0xFF for Cloud Bigtable; "." matches one byte, so ".." matches
	// the two-byte value "\xc3\xa9" and "." does not.
	rowKeyPatterns = []string{"a", "a.*", ".*", "ab|b", "[ab]+", `a\xff`, `\xff.*`, ".", "..", `b\x00.*`, "\xff\xff", "b\x00"}
	familyPatterns = []string{"f", "ff", "g", "f.*", "f|g", ".*", "x", "f+"}
	columnPatterns = []string{"", "a", "ab", "a.*", ".*", `\x00`, "\xff", ".", "[a-b]"}
	valuePatterns  = []string{"", "x", "x.*", ".*", "y|xy", `\xff`, "\xff", ".", "..", "\xc3\xa9", `\x00.*`, "v+x", ".*x"}
)

func be64(v int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return string(b[:])
}

// gen draws ops from a seeded source. Everything it produces depends only on
// the seed (and, for ReadModifyWrite, on the reference's deterministic state,
// see prepareRMW).
type gen struct {
	r *rand.Rand
}

func newGen(seed int64) *gen { return &gen{r: rand.New(rand.NewSource(seed))} }

func pick[T any](g *gen, xs []T) T { return xs[g.r.Intn(len(xs))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) family() string { return pick(g, families) }

// mut draws one well-formed mutation.
func (g *gen) mut() mutOp {
	switch x := g.r.Intn(20); {
	case x < 11:
		ts := pick(g, setTsAlphabet)
		if g.chance(0.07) {
			ts = serverTime // see prepareServerTime
		}
		return mutOp{kind: mSet, fam: g.family(), qual: pick(g, qualAlphabet), ts: ts, value: pick(g, valueAlphabet)}
	case x < 13:
		return mutOp{kind: mDelCol, fam: g.family(), qual: pick(g, qualAlphabet)}
	case x < 17:
		s, e := pick(g, boundTsAlphabet), pick(g, boundTsAlphabet)
		if e != 0 && s >= e {
			s, e = e-1000, s // keep it a valid range: start < end
			if s < 0 {
				s = 0
			}
			if s >= e {
				e = 0
			}
		}
		return mutOp{kind: mDelTsRange, fam: g.family(), qual: pick(g, qualAlphabet), start: s, end: e}
	case x < 19:
		return mutOp{kind: mDelFam, fam: g.family()}
	default:
		return mutOp{kind: mDelRow}
	}
}

// badMut draws a mutation that both stores must reject: a write to an
// undeclared family. NB: not an inverted DeleteTimestampRange: bttest checks
// the range only when the row has cells in that family, and accepts it
// otherwise.
func (g *gen) badMut() mutOp {
	if g.chance(0.5) {
		return mutOp{kind: mSet, fam: unknownFamily, qual: pick(g, qualAlphabet), ts: pick(g, setTsAlphabet), value: pick(g, valueAlphabet)}
	}
	return mutOp{kind: mDelCol, fam: unknownFamily, qual: pick(g, qualAlphabet)}
}

// muts draws 1..4 mutations. With allowBad, the first may be one that must
// fail. NB: only the first: bttest applies a row's mutations one by one and
// stops at the first invalid one, leaving the earlier ones applied, while our
// store (and Cloud Bigtable) reject the whole mutation.
func (g *gen) muts(allowBad bool) []mutOp {
	n := 1 + g.r.Intn(4)
	ms := make([]mutOp, 0, n)
	for range n {
		ms = append(ms, g.mut())
	}
	if allowBad && g.chance(0.06) {
		ms[0] = g.badMut()
	}
	return ms
}

// fctx describes what a filter's input may look like, so that the generator
// only builds filters whose result bttest computes deterministically.
type fctx struct {
	// single: the input cells all belong to one family. bttest walks a row's
	// families in Go map order, so CellsPerRowLimitFilter and
	// CellsPerRowOffsetFilter (which count cells across the row) are only
	// deterministic on single-family input. A FamilyFilter with a literal
	// family name or a ColumnRangeFilter earlier in a chain guarantees it.
	single bool
	// mixed: the input may hold two cells of one column with the same
	// timestamp but different values: an InterleaveFilters whose branches
	// strip values in some branches and not in others. bttest sorts the
	// merged cells with an unstable sort, so which of the two comes first is
	// random, and a later LatestNFilter or CellsPerRow* filter would keep a
	// random one.
	mixed bool
}

// filter draws a filter tree of at most the given depth for input c and
// returns it with the description of its output.
func (g *gen) filter(depth int, c fctx) (*filterSpec, fctx, bool) {
	if depth > 0 && g.chance(0.3) {
		n := 2 + g.r.Intn(2) // bttest rejects chains and interleaves of fewer than two
		if g.chance(0.55) {
			f := &filterSpec{kind: fChain}
			cur, strips := c, false
			for range n {
				s, out, st := g.filter(depth-1, cur)
				f.subs = append(f.subs, s)
				cur, strips = out, strips || st
			}
			return f, cur, strips
		}
		if g.chance(0.2) {
			// ConditionFilter: bttest evaluates the predicate on a copy of
			// the row and applies one branch (nil: no cells) to the row.
			pred, _, _ := g.filter(depth-1, c)
			f := &filterSpec{kind: fCondition, subs: []*filterSpec{pred, nil, nil}}
			out, strips := fctx{single: true}, false
			for i := 1; i <= 2; i++ {
				if g.chance(0.15) {
					continue
				}
				s, sout, st := g.filter(depth-1, c)
				f.subs[i] = s
				out.single = out.single && sout.single
				out.mixed = out.mixed || sout.mixed
				strips = strips || st
			}
			return f, out, strips
		}
		f := &filterSpec{kind: fInterleave}
		out, strips := c, false
		for range n {
			s, sout, st := g.filter(depth-1, c)
			f.subs = append(f.subs, s)
			strips = strips || st
			out.mixed = out.mixed || sout.mixed
		}
		// NB: conservative: any stripping branch may meet a non-stripping one.
		out.mixed = out.mixed || strips
		return f, out, strips
	}
	for {
		switch g.r.Intn(14) {
		case 0:
			return &filterSpec{kind: fRowKey, pattern: pick(g, rowKeyPatterns)}, c, false
		case 1:
			p := pick(g, familyPatterns)
			out := c
			for _, fam := range families {
				out.single = out.single || p == fam
			}
			return &filterSpec{kind: fFamily, pattern: p}, out, false
		case 2:
			return &filterSpec{kind: fColumn, pattern: pick(g, columnPatterns)}, c, false
		case 3:
			return &filterSpec{kind: fValue, pattern: pick(g, valuePatterns)}, c, false
		case 4:
			if c.mixed {
				continue
			}
			return &filterSpec{kind: fLatestN, n: 1 + g.r.Intn(3)}, c, false
		case 5:
			return &filterSpec{kind: fStripValue}, c, true
		case 6:
			s, e := pick(g, boundTsAlphabet), pick(g, boundTsAlphabet)
			if e != 0 && s > e {
				s, e = e, s
			}
			return &filterSpec{kind: fTimestampRange, start: s, end: e}, c, false
		case 7:
			a, b := pick(g, qualAlphabet), pick(g, qualAlphabet)
			if b != "" && a > b {
				a, b = b, a
			}
			out := c
			out.single = true
			return &filterSpec{kind: fColumnRange, fam: g.family(), qa: a, qb: b}, out, false
		case 8, 9:
			if !c.single || c.mixed {
				continue
			}
			if g.chance(0.5) {
				return &filterSpec{kind: fCellsPerRowLimit, n: 1 + g.r.Intn(4)}, c, false
			}
			return &filterSpec{kind: fCellsPerRowOffset, n: g.r.Intn(4)}, c, false
		case 10:
			return &filterSpec{kind: fPassAll}, c, false
		case 11:
			return &filterSpec{kind: fBlockAll}, c, false
		default:
			// Favour the pattern that makes the per-row filters usable.
			fam := g.family()
			f := &filterSpec{kind: fChain, subs: []*filterSpec{{kind: fFamily, pattern: fam}}}
			in := c
			in.single = true
			s, out, st := g.filter(depth-1, in)
			f.subs = append(f.subs, s)
			return f, out, st
		}
	}
}

func (g *gen) rangeSpec(valid bool) rangeSpec {
	switch g.r.Intn(3) {
	case 0:
		a, b := pick(g, boundAlphabet), pick(g, boundAlphabet)
		if valid && b != "" && a > b {
			a, b = b, a
		}
		return rangeSpec{kind: rNew, a: a, b: b}
	case 1:
		return rangeSpec{kind: rPrefix, a: pick(g, prefixAlphabet)}
	default:
		return rangeSpec{kind: rInfinite, a: pick(g, boundAlphabet)}
	}
}

func (g *gen) rowSet() rowSetSpec {
	switch g.r.Intn(8) {
	case 0:
		return rowSetSpec{kind: rsSingle, keys: []string{pick(g, rowAlphabet)}}
	case 1, 2:
		n := g.r.Intn(5) // RowList{} included; duplicates and any order too
		keys := make([]string, n)
		for i := range keys {
			keys[i] = pick(g, rowAlphabet)
		}
		return rowSetSpec{kind: rsList, keys: keys}
	case 3, 4, 5:
		// A single range may be inverted (NewRange("b", "a")): the Cloud
		// client reads nothing without asking the server.
		return rowSetSpec{kind: rsRange, ranges: []rangeSpec{g.rangeSpec(false)}}
	default:
		// NB: the ranges of a list are kept non-inverted: bttest rejects a
		// request holding an inverted range with InvalidArgument, a
		// behaviour our store need not copy.
		n := 1 + g.r.Intn(3)
		rs := rowSetSpec{kind: rsRangeList}
		for range n {
			rs.ranges = append(rs.ranges, g.rangeSpec(true))
		}
		return rs
	}
}

func (g *gen) rmwRules() []rmwRule {
	n := 1 + g.r.Intn(3)
	var rules []rmwRule
	seen := map[[2]string]bool{}
	for range n {
		fam := g.family()
		if g.chance(0.04) {
			fam = unknownFamily
		}
		r := rmwRule{fam: fam, qual: pick(g, qualAlphabet)}
		// NB: distinct columns only. bttest gives each rule its own
		// max(now, newest) timestamp, so two rules on one column may land
		// in the same millisecond (one cell) or not (two cells).
		if seen[[2]string{r.fam, r.qual}] {
			continue
		}
		seen[[2]string{r.fam, r.qual}] = true
		if g.chance(0.5) {
			r.increment = true
			r.delta = pick(g, []int64{1, -1, 5, 1 << 40})
		} else {
			r.value = pick(g, valueAlphabet)
		}
		rules = append(rules, r)
	}
	return rules
}

// op draws the next op of a sequence. RMW ops still go through prepareRMW.
func (g *gen) op() op {
	switch x := g.r.Intn(100); {
	case x < 28:
		if g.chance(0.01) {
			// An empty Mutation: both must fail. NB: only in Apply: in
			// ApplyBulk bttest accepts an empty entry if another has
			// mutations, where Cloud Bigtable (and our store) reject it.
			return op{kind: opApply, row: pick(g, rowAlphabet), muts: []mutOp{}}
		}
		return op{kind: opApply, row: pick(g, rowAlphabet), muts: g.muts(true)}
	case x < 36:
		o := op{kind: opCond, row: pick(g, rowAlphabet)}
		if !g.chance(0.1) {
			o.cond, _, _ = g.filter(3, fctx{})
		}
		// NB: no invalid mutations in conditional branches: bttest only
		// validates the branch it applies, a store may validate both.
		if !g.chance(0.15) {
			o.mtrue = g.muts(false)
		}
		if !g.chance(0.15) {
			o.mfalse = g.muts(false)
		}
		return o
	case x < 42:
		n := 1 + g.r.Intn(5)
		o := op{kind: opBulk}
		for range n {
			o.bulkRows = append(o.bulkRows, pick(g, rowAlphabet))
			o.bulkMuts = append(o.bulkMuts, g.muts(true))
		}
		return o
	case x < 50:
		return op{kind: opRMW, row: pick(g, rowAlphabet), rules: g.rmwRules()}
	case x < 62:
		o := op{kind: opReadRow, row: pick(g, rowAlphabet)}
		if g.chance(0.7) {
			o.filter, _, _ = g.filter(3, fctx{})
		}
		return o
	case x < 99:
		o := op{kind: opReadRows, rs: g.rowSet(), iter: g.chance(0.3)}
		if g.chance(0.7) {
			o.filter, _, _ = g.filter(3, fctx{})
		}
		if g.chance(0.2) {
			o.limit = int64(1 + g.r.Intn(3))
		}
		if g.chance(0.1) {
			o.stopAfter = 1 + g.r.Intn(2)
		}
		return o
	default:
		if g.chance(0.3) {
			return op{kind: opReopen}
		}
		return op{kind: opReadRows, rs: rowSetSpec{kind: rsRange, ranges: []rangeSpec{{kind: rInfinite}}}}
	}
}
