package bigtable

import (
	"bytes"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/webtable/webtable/bigtable/internal/hooks"
)

// rowKey returns the key of the cursor's row, from the slab in a
// multi-row read.
func (rr *rowReader) rowKey(c *cursor) string {
	if !rr.slabbed || c.row != "" || c.hint != "" {
		return c.rowKey()
	}
	c.row = rr.sl.str(c.rowRaw)
	return c.row
}

// valueCopy returns a copy of the item's value (nil when empty), from the
// slab in a multi-row read.
func (rr *rowReader) valueCopy(item *badger.Item) ([]byte, error) {
	if !rr.slabbed {
		v, err := item.ValueCopy(nil)
		if len(v) == 0 {
			v = nil
		}
		return v, err
	}
	var v []byte
	err := item.Value(func(b []byte) error {
		v = rr.sl.copy(b)
		return nil
	})
	return v, err
}

// startRow begins the row of key, dropping the cells of the one before.
func (rr *rowReader) startRow(key string) {
	rr.key = key
	rr.in = rr.in[:0]
	rr.items = rr.items[:0]
	rr.fams = rr.fams[:0]
	rr.stage.startRow(key)
}

// addCell takes the cursor's cell into the current row: straight into its
// items when every cell passes (fast), into the whole row for a filter
// that needs it, or through the filter one cell at a time.
func (rr *rowReader) addCell(c *cursor) error {
	if rr.fast && rr.cells != nil {
		err := c.item.Value(func(v []byte) error {
			rr.arena = append(rr.arena, v...)
			return nil
		})
		if err != nil {
			return fmt.Errorf("bigtable: reading value: %w", err)
		}
		rr.items = append(rr.items, ReadItem{Column: c.column, Timestamp: c.ts})
		rr.fams = append(rr.fams, c.family)
		rr.voff = append(rr.voff, len(rr.arena))
		return nil
	}
	if rr.fast {
		// NB: the common read, every cell with its value, skips the
		// filter machinery: a full scan is this loop and Badger's.
		v, err := rr.valueCopy(c.item)
		if err != nil {
			return fmt.Errorf("bigtable: reading value: %w", err)
		}
		rr.items = append(rr.items, ReadItem{Row: rr.key, Column: c.column, Timestamp: c.ts, Value: v})
		rr.fams = append(rr.fams, c.family)
		return nil
	}
	cl := cell{family: c.family, qualifier: c.qualifier, column: c.column, ts: c.ts}
	if rr.whole {
		v, err := c.item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("bigtable: reading value: %w", err)
		}
		if len(v) == 0 {
			v = nil
		}
		cl.val = &lazyValue{v: v, loaded: true}
		rr.in = append(rr.in, cl)
		return nil
	}
	rr.lv = lazyValue{item: c.item}
	cl.val = &rr.lv
	rr.one[0] = cl
	var err error
	rr.out, err = rr.stage.apply(rr.one[:], rr.out[:0])
	if err != nil {
		return err
	}
	return rr.collect(rr.out)
}

// collect appends passed cells to the current Row, reading their values.
func (rr *rowReader) collect(cells []cell) error {
	for i := range cells {
		c := &cells[i]
		var v []byte
		if !rr.noValues && c.val != nil {
			var err error
			if v, err = c.val.get(); err != nil {
				return err
			}
			if c.val.handed && v != nil {
				v = bytes.Clone(v) // a second copy of one cell (InterleaveFilters)
			}
			c.val.handed = true
		}
		if rr.cells != nil {
			rr.arena = append(rr.arena, v...)
			rr.voff = append(rr.voff, len(rr.arena))
			v = nil
		}
		rr.items = append(rr.items, ReadItem{Row: rr.key, Column: c.column, Timestamp: c.ts, Value: v})
		rr.fams = append(rr.fams, c.family)
	}
	return nil
}

// deliverCells hands the current row to rr.cells as a hooks.Row whose
// values are slices of rr.arena, and reports whether the read goes on.
func (rr *rowReader) deliverCells() bool {
	h := &rr.hrow
	h.Key, h.Cells = rr.keyBytes, h.Cells[:0]
	start := 0
	for i := range rr.items {
		it, fam, end := &rr.items[i], rr.fams[i], rr.voff[i]
		var v []byte
		if end > start {
			v = rr.arena[start:end:end]
		}
		h.Cells = append(h.Cells, hooks.Cell{Family: fam, Qualifier: it.Column[len(fam)+1:], Timestamp: int64(it.Timestamp), Value: v})
		start = end
	}
	rr.items, rr.fams = rr.items[:0], rr.fams[:0]
	rr.delivered++
	return rr.cells(h)
}

// finishRow completes the current row's items: a filter that needs the
// whole row runs now.
func (rr *rowReader) finishRow() error {
	if rr.whole {
		var err error
		rr.out, err = rr.stage.apply(rr.in, rr.out[:0])
		if err != nil {
			return err
		}
		if err := rr.collect(rr.out); err != nil {
			return err
		}
		clear(rr.in)
	}
	return nil
}
