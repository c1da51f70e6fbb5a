package bigtable

import (
	"regexp"
	"slices"
)

// readFamilies returns, sorted, the only families whose cells f can pass
// when the cells of every other family can be left out of a row without
// changing what f passes of it; nil means no such list (every family may
// matter). A read then steps over the cells of other families, seeking
// past them instead of walking each one (see cursor.next).
//
// NB: only filters that judge each family on its own cells qualify
// (cell-by-cell tests, and LatestN, which counts versions within a
// column); a filter that counts the cells of a row (CellsPerRow...) or
// looks at the whole row (ConditionFilter) makes the answer nil.
func readFamilies(f Filter) []string {
	fams, local := familyBound(f)
	if !local || fams == nil {
		return nil
	}
	slices.Sort(fams)
	return slices.Compact(fams)
}

// familyBound reports the families f can pass (nil: any) and whether f
// judges each family's cells without looking at other families' cells.
func familyBound(f Filter) (fams []string, local bool) {
	switch f := f.(type) {
	case familyFilter:
		// NB: a pattern without metacharacters matches itself only (the
		// match is of the whole name); QuoteMeta allocates nothing then.
		if p := string(f); regexp.QuoteMeta(p) == p {
			return []string{p}, true
		}
		return nil, true
	case columnRangeFilter:
		return []string{f.family}, true
	case chainFilter:
		// A cell passes a chain when it passes every stage: the families
		// of any stage bound the chain.
		var out []string
		bound := false
		for _, s := range f {
			sf, sl := familyBound(s)
			if !sl {
				return nil, false
			}
			if sf == nil {
				continue
			}
			if !bound {
				out, bound = slices.Clone(sf), true
				continue
			}
			out = slices.DeleteFunc(out, func(x string) bool { return !slices.Contains(sf, x) })
		}
		if bound && out == nil {
			out = []string{} // no family passes: still a bound
		}
		return out, true
	case interleaveFilter:
		var out []string
		for _, s := range f {
			sf, sl := familyBound(s)
			if !sl {
				return nil, false
			}
			if sf == nil {
				return nil, allLocal(f)
			}
			out = append(out, sf...)
		}
		if out == nil {
			out = []string{}
		}
		return out, true
	case columnFilter, valueFilter, latestNFilter, stripValueFilter, timestampRangeFilter,
		valueRangeFilter, passAllFilter, rowKeyFilter:
		return nil, true
	}
	return nil, false
}

// allLocal reports whether every filter of fs judges each family on its
// own cells.
func allLocal(fs []Filter) bool {
	for _, s := range fs {
		if _, l := familyBound(s); !l {
			return false
		}
	}
	return true
}
