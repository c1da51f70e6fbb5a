package difftest

import (
	"sort"
	"strings"
	"time"
)

// result is what one op returned, in a form both stores can be reduced to.
// Only exported fields are compared; errText is kept for the report.
type result struct {
	Err      bool   // the call returned an error
	Matched  string // opCond: "true"/"false" when the call succeeded
	BulkErrs []bool // opBulk: per-entry failure, len = number of entries
	Rows     []rowOut

	errText string
}

// rowOut is one returned row: its cells, families in name order (a Row is a
// map, so family order carries no meaning), and within a family in the
// order returned: qualifier ascending, newest first.
type rowOut struct {
	Key   string
	Cells []cellOut
}

type cellOut struct {
	Fam, Qual string
	TS        int64
	Value     string
}

// item is one ReadItem of either package, split into its parts.
type item struct {
	row, column string
	ts          int64
	value       []byte
}

var (
	// wallLo and wallHi bound the timestamps that can come from a wall
	// clock during this test binary's run (see nowMarker).
	wallLo = time.Now().Add(-time.Hour).UnixMicro()
	wallHi = time.Now().Add(48 * time.Hour).UnixMicro()
)

// normalizeRow turns one row (family -> items) into a rowOut:
//   - families sorted by name;
//   - a timestamp taken from a wall clock becomes nowMarker;
//   - within a run of cells of one column with one timestamp (only an
//     InterleaveFilters produces those) cells are sorted by value: Cloud
//     Bigtable leaves their order unspecified and bttest sorts them with an
//     unstable sort;
//   - an item whose Row is not the row's key gets a visible "!row=" family,
//     so that the mismatch is reported.
func normalizeRow(key string, fams map[string][]item) rowOut {
	names := make([]string, 0, len(fams))
	for f := range fams {
		names = append(names, f)
	}
	sort.Strings(names)
	out := rowOut{Key: key}
	for _, f := range names {
		for _, it := range fams[f] {
			fam, qual, ok := strings.Cut(it.column, ":")
			if !ok || fam != f {
				fam = "!column=" + it.column + " in family " + f
			}
			if it.row != key {
				fam = "!row=" + it.row + " " + fam
			}
			ts := it.ts
			if ts >= wallLo && ts <= wallHi {
				ts = nowMarker
			}
			out.Cells = append(out.Cells, cellOut{Fam: fam, Qual: qual, TS: ts, Value: string(it.value)})
		}
	}
	cs := out.Cells
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].Fam == cs[i].Fam && cs[j].Qual == cs[i].Qual && cs[j].TS == cs[i].TS {
			j++
		}
		sort.SliceStable(cs[i:j], func(a, b int) bool { return cs[i+a].Value < cs[i+b].Value })
		i = j
	}
	return out
}

// newest returns the newest cell of column fam:qual in row, if any.
func (r rowOut) newest(fam, qual string) (cellOut, bool) {
	for _, c := range r.Cells {
		if c.Fam == fam && c.Qual == qual {
			return c, true // cells of a column come newest first
		}
	}
	return cellOut{}, false
}

// prepareRMW adapts a ReadModifyWrite to the state of the row (read from the
// reference, unfiltered) so that bttest's answer is deterministic:
//   - a rule on a column whose newest cell has a wall-clock timestamp is
//     dropped: its new timestamp would be max(now, newest), which falls in
//     the same millisecond as newest (bttest replaces the cell) or not (a new
//     version) depending on timing;
//   - if a rule must fail (undeclared family, or Increment of a value that is
//     not 8 bytes long) the op is reduced to that rule alone: bttest applies
//     the rules before it and then fails, where a store that applies a
//     ReadModifyWrite atomically changes nothing.
//
// It returns false when no rule is left.
func prepareRMW(o op, row rowOut) (op, bool) {
	declared := map[string]bool{}
	for _, f := range families {
		declared[f] = true
	}
	var kept []rmwRule
	for _, r := range o.rules {
		if !declared[r.fam] {
			o.rules = []rmwRule{r}
			return o, true
		}
		c, ok := row.newest(r.fam, r.qual)
		if ok && c.TS == nowMarker {
			continue
		}
		if r.increment && ok && len(c.Value) != 8 {
			o.rules = []rmwRule{r}
			return o, true
		}
		kept = append(kept, r)
	}
	o.rules = kept
	return o, len(kept) > 0
}

// serverTimeRows lists the rows in which o sets a cell with ServerTime.
func serverTimeRows(o op) []string {
	var rows []string
	scan := func(row string, ms []mutOp) {
		for _, m := range ms {
			if m.kind == mSet && m.ts == serverTime {
				rows = append(rows, row)
				return
			}
		}
	}
	switch o.kind {
	case opApply:
		scan(o.row, o.muts)
	case opCond:
		scan(o.row, o.mtrue)
		scan(o.row, o.mfalse)
	case opBulk:
		for i := range o.bulkRows {
			scan(o.bulkRows[i], o.bulkMuts[i])
		}
	}
	return rows
}

// prepareServerTime adapts the ServerTime Sets of o to the state of their
// rows (read from the reference) so that bttest's answer is deterministic.
// NB: a ServerTime cell lands in the current millisecond in bttest and the
// current microsecond in ours: two of them in one column (an earlier one
// still there, or another in the same op and row) are one cell or two
// depending on timing. Such a Set gets a fixed timestamp (3000) instead.
func prepareServerTime(o op, rows map[string]rowOut) op {
	type col struct{ row, fam, qual string }
	seen := map[col]bool{}
	fix := func(row string, ms []mutOp) []mutOp {
		var out []mutOp
		for i, m := range ms {
			if m.kind != mSet || m.ts != serverTime {
				continue
			}
			c := col{row, m.fam, m.qual}
			hasNow := false
			for _, cell := range rows[row].Cells {
				hasNow = hasNow || cell.Fam == m.fam && cell.Qual == m.qual && cell.TS == nowMarker
			}
			if hasNow || seen[c] {
				if out == nil {
					out = append([]mutOp{}, ms...)
				}
				out[i].ts = 3000
			}
			seen[c] = true
		}
		if out == nil {
			return ms
		}
		return out
	}
	switch o.kind {
	case opApply:
		o.muts = fix(o.row, o.muts)
	case opCond:
		// Only one branch is applied, so each is judged on its own.
		o.mtrue = fix(o.row, o.mtrue)
		clear(seen)
		o.mfalse = fix(o.row, o.mfalse)
	case opBulk:
		o.bulkMuts = append([][]mutOp{}, o.bulkMuts...)
		for i := range o.bulkRows {
			o.bulkMuts[i] = fix(o.bulkRows[i], o.bulkMuts[i])
		}
	}
	return o
}
