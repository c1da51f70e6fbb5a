package webtable

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/webtable/webtable/bigtable"
)

// Derived column families: what the indexing jobs (cmd/index, package
// jobs) compute from the crawled families and write back, as the jobs over
// Google's WebTable did. Nothing else writes them, and the jobs write
// nothing else: [WebTable.WriteDerived] refuses any other family.
//
//	text:title, text:body, text:lang, text:src
//	                  per stored contents:html version, at its timestamp:
//	                  the page's title, its visible text (package extract),
//	                  its language (ISO 639-1, "" when undecided) and the
//	                  form and contents:sha256 it was computed from
//	                  ("1 <sha256>"). Kept as many versions as contents.
//	rank:page         the page's PageRank, a decimal number; the ranks of
//	                  all fetched pages sum to 1. One version.
//	rank:hosts        how many distinct hosts link to the page (decimal).
//	dup:simhash       the 64-bit simhash of the page's text shingles, 16
//	                  hex digits, and dup:src the text:src it was computed
//	                  from (so that a rerun hashes only changed texts).
//	                  One version.
//	dup:of            the row key of the representative of the page's
//	                  cluster of duplicates (the representative names
//	                  itself); absent when the page has no duplicate.
//	dup:members       in the representative's row only: the row keys of
//	                  the cluster's members (itself included) in key
//	                  order, one a line, at most the first 100; so that a
//	                  page view lists a page's copies on every site with
//	                  one read.
const (
	FamilyText = "text"
	FamilyRank = "rank"
	FamilyDup  = "dup"
)

// DerivedFamilies lists the families the jobs write, in the order shown.
var DerivedFamilies = []string{FamilyDup, FamilyRank, FamilyText}

// JobPrefix starts the reserved rows where the jobs record their progress
// ([WebTable.JobPlan], [WebTable.MarkSplitDone]): "~job/<job>/plan" and
// "~job/<job>/done/<run>/<split>", in the job's own family.
const JobPrefix = ReservedPrefix + "job/"

// ErrNotDerived means a write named a family the jobs must not write.
var ErrNotDerived = errors.New("webtable: not a derived family")

// IsDerived reports whether family is one the jobs write.
func IsDerived(family string) bool { return slices.Contains(DerivedFamilies, family) }

// EnsureDerived creates the derived families that are missing and sets
// their GC policies: text keeps as many versions as contents (one per
// stored HTML version), rank and dup one. A policy already in force is
// left alone (setting one makes the embedded store sweep the table).
func (w *WebTable) EnsureDerived(ctx context.Context) error {
	have, err := listFamilies(ctx, w.store, w.name)
	if err != nil {
		return err
	}
	textPolicy := bigtable.MaxVersionsPolicy(DefaultVersions)
	if p := have[FamilyContents]; p != nil {
		textPolicy = p
	}
	policies := map[string]bigtable.GCPolicy{
		FamilyText: textPolicy,
		FamilyRank: bigtable.MaxVersionsPolicy(1),
		FamilyDup:  bigtable.MaxVersionsPolicy(1),
	}
	for _, fam := range DerivedFamilies {
		if err := ensureFamily(ctx, w.store, w.name, have, fam, policies[fam]); err != nil {
			return err
		}
	}
	return nil
}

// DerivedCell is one cell a job writes.
type DerivedCell struct {
	Qualifier string
	Timestamp bigtable.Timestamp // microseconds; a job derives it from its inputs
	Value     []byte
	// Blind is the job's word that the column holds at most one version,
	// at Replaces (0: none), as its scan read it: the write then deletes
	// that version and sets the new one without reading the column, so
	// that a bulk write of such cells is the pipelined one (see
	// bigtable.Mutation.SetOnlyVersion). A wrong word costs disk, never a
	// wrong read, in a family that keeps one version (rank, dup): a
	// version left behind is older than the one set, and GC removes it.
	Blind    bool
	Replaces bigtable.Timestamp
}

// DerivedWrite is what a job writes to one row, in one family, atomically.
type DerivedWrite struct {
	Key    string
	Family string
	// DeleteFamily removes every cell of Family in the row before Cells
	// are set (a row whose derived cells are rewritten whole).
	DeleteFamily bool
	// DeleteColumns removes every version of these qualifiers before
	// Cells are set.
	DeleteColumns []string
	Cells         []DerivedCell
}

// WriteDerived applies writes, each atomically on its row. Only derived
// families and page rows may be written. A write of the same cells at the
// same timestamps changes nothing, so a job that writes again after a crash
// leaves the table as one uninterrupted run would.
func (w *WebTable) WriteDerived(ctx context.Context, writes []DerivedWrite) error {
	if len(writes) == 0 {
		return nil
	}
	rows := make([]string, len(writes))
	muts := make([]*bigtable.Mutation, len(writes))
	for i, dw := range writes {
		if !IsDerived(dw.Family) {
			return fmt.Errorf("%w: %q (row %q; the derived families are %v)", ErrNotDerived, dw.Family, dw.Key, DerivedFamilies)
		}
		if IsReserved(dw.Key) {
			return fmt.Errorf("webtable: row %q is reserved, not a page", dw.Key)
		}
		m := bigtable.NewMutation()
		m.Grow(len(dw.Cells) + len(dw.DeleteColumns) + 1)
		if dw.DeleteFamily {
			m.DeleteCellsInFamily(dw.Family)
		}
		for _, q := range dw.DeleteColumns {
			m.DeleteCellsInColumn(dw.Family, q)
		}
		for _, c := range dw.Cells {
			switch {
			case !c.Blind:
				m.Set(dw.Family, c.Qualifier, c.Timestamp, c.Value)
			case c.Replaces > 0 && c.Replaces != c.Timestamp:
				m.DeleteOnlyVersion(dw.Family, c.Qualifier, c.Replaces)
				fallthrough
			default:
				m.SetOnlyVersion(dw.Family, c.Qualifier, c.Timestamp, c.Value)
			}
		}
		rows[i], muts[i] = dw.Key, m
	}
	errs, err := w.tbl.ApplyBulk(ctx, rows, muts)
	if err != nil {
		return fmt.Errorf("webtable: writing derived cells: %w", err)
	}
	for i, e := range errs {
		if e != nil {
			return fmt.Errorf("webtable: writing derived cells of %q: %w", rows[i], e)
		}
	}
	return nil
}

// Select says what a job reads of each row ([WebTable.ScanSelect]).
type Select struct {
	// Families are read whole, the newest version of each column.
	Families []string
	// AllVersions are families read with every stored version.
	AllVersions []string
	// Columns ("family:qualifier") are read, newest version only.
	Columns []string
	// Names are families whose column names are read without values
	// (anchor, for the link graph).
	Names []string
}

func (s Select) filter() (bigtable.Filter, error) {
	var fs []bigtable.Filter
	check := func(f string) error {
		if err := checkFamily(f); err != nil {
			return err
		}
		return nil
	}
	for _, f := range s.Families {
		if err := check(f); err != nil {
			return nil, err
		}
		fs = append(fs, bigtable.ChainFilters(bigtable.FamilyFilter(regexp.QuoteMeta(f)), bigtable.LatestNFilter(1)))
	}
	for _, f := range s.AllVersions {
		if err := check(f); err != nil {
			return nil, err
		}
		fs = append(fs, bigtable.FamilyFilter(regexp.QuoteMeta(f)))
	}
	for _, c := range s.Columns {
		fam, qual, ok := cutColumn(c)
		if !ok {
			return nil, fmt.Errorf("%w: column %q is not family:qualifier", ErrBadColumn, c)
		}
		if err := check(fam); err != nil {
			return nil, err
		}
		fs = append(fs, bigtable.ChainFilters(column(fam, qual), bigtable.LatestNFilter(1)))
	}
	for _, f := range s.Names {
		if err := check(f); err != nil {
			return nil, err
		}
		fs = append(fs, bigtable.ChainFilters(bigtable.FamilyFilter(regexp.QuoteMeta(f)), bigtable.LatestNFilter(1), bigtable.StripValueFilter()))
	}
	switch len(fs) {
	case 0:
		return nil, errors.New("webtable: a Select names nothing to read")
	case 1:
		return fs[0], nil
	}
	return bigtable.InterleaveFilters(fs...), nil
}

func cutColumn(c string) (fam, qual string, ok bool) {
	for i := 0; i < len(c); i++ {
		if c[i] == ':' {
			return c[:i], c[i+1:], i > 0
		}
	}
	return "", "", false
}

// ScanSelect calls fn with every page row in [start, end) ("" end: to the
// last page; reserved rows are never passed) that has a cell sel reads, in
// key order, until fn returns false. Cells come ordered as [Row] says.
func (w *WebTable) ScanSelect(ctx context.Context, start, end string, sel Select, fn func(Row) bool) error {
	f, err := sel.filter()
	if err != nil {
		return err
	}
	if end == "" || end > ReservedPrefix {
		end = ReservedPrefix
	}
	if start >= end {
		return nil
	}
	stripped := len(sel.Names) > 0
	err = w.tbl.ReadRows(ctx, bigtable.NewRange(start, end), func(r bigtable.Row) bool {
		row := toRow(r, false)
		if stripped {
			for i := range row.Cells {
				if slices.Contains(sel.Names, row.Cells[i].Family) {
					row.Cells[i].Value = nil
				}
			}
		}
		return fn(row)
	}, bigtable.RowFilter(f))
	if err != nil {
		return fmt.Errorf("webtable: scanning [%q, %q): %w", start, end, err)
	}
	return nil
}

// RowKeys calls fn with the key of every page row in [start, end) in key
// order, reading no values, until fn returns false (the runner uses it to
// cut a big tablet into splits).
func (w *WebTable) RowKeys(ctx context.Context, start, end string, fn func(key string) bool) error {
	if end == "" || end > ReservedPrefix {
		end = ReservedPrefix
	}
	if start >= end {
		return nil
	}
	f := bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())
	err := w.tbl.ReadRows(ctx, bigtable.NewRange(start, end), func(r bigtable.Row) bool {
		return fn(r.Key())
	}, bigtable.RowFilter(f))
	if err != nil {
		return fmt.Errorf("webtable: listing keys of [%q, %q): %w", start, end, err)
	}
	return nil
}

// TabletBounds lists the tablets of the WebTable in key order from the
// store's row-key samples alone: Bytes and Rows are -1. Unlike
// [WebTable.Tablets] it never counts a tablet (which the embedded store
// does by a key-only scan, seconds per million rows).
func (w *WebTable) TabletBounds(ctx context.Context) ([]Tablet, error) {
	keys, err := w.tbl.SampleRowKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("webtable: listing tablets: %w", err)
	}
	var out []Tablet
	start := ""
	for _, k := range keys {
		if k == "" || k <= start {
			continue
		}
		out = append(out, Tablet{Start: start, End: k, Bytes: -1, Rows: -1})
		start = k
	}
	return append(out, Tablet{Start: start, Bytes: -1, Rows: -1}), nil
}
