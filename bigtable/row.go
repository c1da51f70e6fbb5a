package bigtable

import "slices"

// A Row is the result of a read: the cells of one row that passed the read's
// filter, keyed by column family. Within a family, items are ordered by
// qualifier, then newest first.
type Row map[string][]ReadItem

// Key returns the row's key, or "" if the row is empty.
func (r Row) Key() string {
	for _, items := range r {
		if len(items) > 0 {
			return items[0].Row
		}
	}
	return ""
}

// A ReadItem is one cell version of a Row. Column is "family:qualifier".
// Value is nil for an empty value and after StripValueFilter; it belongs to
// the caller.
type ReadItem struct {
	Row, Column string
	Timestamp   Timestamp
	Value       []byte
}

// buildRow turns a row's items, and the family of each, into a Row: one
// allocation for every item of the row (a slice of sl's, when not nil),
// and one map entry per family.
//
// NB: cells reach collect in key order, so a family's items are
// contiguous; each family gets a slice of the one allocation, capped so
// that a caller's append copies instead of overwriting the next family.
func buildRow(items []ReadItem, fams []string, sl *slab) Row {
	var all []ReadItem
	if sl != nil {
		all = sl.cloneItems(items)
	} else {
		all = slices.Clone(items)
	}
	if n := len(all); fams[0] == fams[n-1] {
		return Row{fams[0]: all} // one family, the common case
	}
	row := make(Row, 2)
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && fams[j] == fams[i] {
			j++
		}
		f := fams[i]
		if prev, ok := row[f]; ok {
			row[f] = append(prev, all[i:j]...) // not expected: see NB
		} else {
			row[f] = all[i:j:j]
		}
		i = j
	}
	return row
}
