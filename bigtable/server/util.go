package server

import (
	"maps"
	"slices"
	"strconv"

	"github.com/webtable/webtable/bigtable"
)

func itoa(i int) string { return strconv.Itoa(i) }

// sortedFamilies returns the families of r that hold cells, in name order.
func sortedFamilies(r bigtable.Row) []string {
	if len(r) == 1 { // the common case in a scan of one family: no sort
		for f, items := range r {
			if len(items) > 0 {
				return []string{f}
			}
		}
		return nil
	}
	fams := slices.Sorted(maps.Keys(r))
	return slices.DeleteFunc(fams, func(f string) bool { return len(r[f]) == 0 })
}
