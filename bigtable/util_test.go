package bigtable

import (
	"github.com/dgraph-io/badger/v4"
	"slices"
	"strconv"
)

func sortStrings(s []string) { slices.Sort(s) }
func itoa(n int64) string    { return strconv.FormatInt(n, 10) }

type badgerTxn = badger.Txn
