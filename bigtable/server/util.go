package server

import (
	"maps"
	"slices"
	"strconv"

	"github.com/webtable/webtable/bigtable"
)

func itoa(i int) string { return strconv.Itoa(i) }

// sortedFamilies appends the families of r that hold cells to dst, in name
// order.
func sortedFamilies(r bigtable.Row, dst []string) []string {
	if len(r) == 1 { // the common case in a scan of one family: no sort
		for f, items := range r {
			if len(items) > 0 {
				dst = append(dst, f)
			}
		}
		return dst
	}
	dst = slices.AppendSeq(dst, maps.Keys(r))
	slices.Sort(dst)
	return slices.DeleteFunc(dst, func(f string) bool { return len(r[f]) == 0 })
}
