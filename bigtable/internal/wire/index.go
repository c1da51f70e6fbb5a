package wire

import "strconv"

// fmtIndex names element i of a repeated field: fmtIndex("chain", 2) is
// "chain[2]".
func fmtIndex(where string, i int) string { return where + "[" + strconv.Itoa(i) + "]" }
