package bigtable

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// TabletInfo describes one tablet: the rows in [Start, End) ("" End: to the
// end of the table), with approximate size in bytes (keys and values as
// stored) and number of rows.
type TabletInfo struct {
	Start, End string
	Bytes      int64
	Rows       int64
}

// Tablets returns the tablets of a table in key order. Every table is one
// tablet for now, so this is one entry covering the table; its figures come
// from a key-only scan.
func (db *DB) Tablets(ctx context.Context, table string) ([]TabletInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := db.begin(); err != nil {
		return nil, err
	}
	defer db.opMu.RUnlock()
	ts, err := db.schema(table)
	if err != nil {
		return nil, err
	}
	info := TabletInfo{}
	ranges := InfiniteRange("").keyRanges(nil, ts.id)
	err = db.bdb.View(func(txn *badger.Txn) error {
		it := newIterator(txn, ranges)
		defer it.Close()
		c := newCursor(it, ranges)
		for n := 0; c.next(); n++ {
			if n&1023 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if c.newRow {
				info.Rows++
			}
			info.Bytes += c.item.EstimatedSize()
		}
		return c.err
	})
	if err != nil {
		return nil, fmt.Errorf("bigtable: tablets of table %q: %w", table, err)
	}
	return []TabletInfo{info}, nil
}

// SampleRowKeys returns the row keys that end the table's tablets, in key
// order, the last being "" (the end of the table), as Cloud Bigtable's
// SampleRowKeys does. With one tablet per table that is just [""].
func (t *Table) SampleRowKeys(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.db.begin(); err != nil {
		return nil, err
	}
	defer t.db.opMu.RUnlock()
	if _, err := t.db.schema(t.name); err != nil {
		return nil, err
	}
	return []string{""}, nil
}
