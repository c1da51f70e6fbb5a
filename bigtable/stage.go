package bigtable

import (
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// cell is one cell version flowing through a filter. Cells of a row reach a
// stage in key order: family, qualifier, newest first.
type cell struct {
	family, qualifier string
	column            string // family + ":" + qualifier, shared by the column's versions
	ts                Timestamp
	val               *lazyValue // nil after StripValueFilter
}

// lazyValue reads a value from Badger only when something asks for it.
//
// NB: item is valid only until the Badger iterator moves, so a streaming read
// must be done with a cell before it advances; whole-row reads load values
// eagerly.
type lazyValue struct {
	item   *badger.Item
	v      []byte
	loaded bool
	handed bool // v is in a ReadItem already: copy it for another
}

func (l *lazyValue) get() ([]byte, error) {
	if !l.loaded {
		v, err := l.item.ValueCopy(nil)
		if err != nil {
			return nil, fmt.Errorf("bigtable: reading value: %w", err)
		}
		if len(v) == 0 {
			v = nil
		}
		l.v, l.loaded, l.item = v, true, nil
	}
	return l.v, nil
}

func (c *cell) value() ([]byte, error) {
	if c.val == nil {
		return nil, nil
	}
	return c.val.get()
}

// A stage evaluates one compiled Filter over the cells of one row at a time.
// startRow announces a new row; apply appends to out the cells that pass
// among in (which it must not modify) and returns out. A streaming read
// calls apply once per cell; a whole-row read once with the whole row.
type stage interface {
	startRow(key string)
	apply(in, out []cell) ([]cell, error)
}

// compareCells orders cells as keys do: family, qualifier, newest first.
func compareCells(a, b cell) int {
	if c := strings.Compare(a.family, b.family); c != 0 {
		return c
	}
	if c := strings.Compare(a.qualifier, b.qualifier); c != 0 {
		return c
	}
	switch {
	case a.ts > b.ts:
		return -1
	case a.ts < b.ts:
		return 1
	}
	return 0
}

// predStage passes the cells for which pred holds.
type predStage struct {
	pred func(c *cell) (bool, error)
}

func (predStage) startRow(string) {}

func (s predStage) apply(in, out []cell) ([]cell, error) {
	for i := range in {
		ok, err := s.pred(&in[i])
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, in[i])
		}
	}
	return out, nil
}
