package bigtable

import (
	"slices"
	"strconv"
)

func sortStrings(s []string) { slices.Sort(s) }
func itoa(n int64) string    { return strconv.FormatInt(n, 10) }
