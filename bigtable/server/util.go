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
	fams := slices.Sorted(maps.Keys(r))
	return slices.DeleteFunc(fams, func(f string) bool { return len(r[f]) == 0 })
}
