package webtable

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/webtable/webtable/bigtable"
)

// Anchors returns at most n incoming anchors of row key (anchor:<referrer>
// cells, the latest version of each), in referrer order, starting after
// the referrer after ("" for the first), and next, the referrer to pass as
// after for the following page ("" after the last). One page is in memory
// at a time: a row linked from millions of pages is read a page at a time.
func (w *WebTable) Anchors(ctx context.Context, key, after string, n int) (anchors []Cell, next string, err error) {
	if n <= 0 {
		return nil, "", fmt.Errorf("webtable: anchors of %q: want a page of at least 1, got %d", key, n)
	}
	start := ""
	if after != "" {
		start = after + "\x00" // NB: the first qualifier after it
	}
	f := bigtable.ChainFilters(
		bigtable.ColumnRangeFilter(FamilyAnchor, start, ""),
		bigtable.LatestNFilter(1),
		bigtable.CellsPerRowLimitFilter(n+1),
	)
	r, err := w.tbl.ReadRow(ctx, key, bigtable.RowFilter(f))
	if err != nil {
		return nil, "", fmt.Errorf("webtable: reading the anchors of %q: %w", key, err)
	}
	cells := toRow(r, false).Cells
	if len(cells) > n {
		cells, next = cells[:n], cells[n-1].Qualifier
	}
	return cells, next, nil
}

// notFamily is a family pattern that matches every family but name.
//
// NB: RE2 has no negative lookahead: the pattern lists every proper
// prefix of name, every string that leaves name at some byte, and name
// followed by more. Patterns are matched against the whole family name.
func notFamily(name string) string {
	var alts []string
	for i := range len(name) {
		p := regexp.QuoteMeta(name[:i])
		alts = append(alts, p, p+"[^"+regexp.QuoteMeta(name[i:i+1])+"].*")
	}
	alts = append(alts, regexp.QuoteMeta(name)+".+")
	return "(?s:" + strings.Join(alts, "|") + ")"
}
