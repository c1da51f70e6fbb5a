package bigtable

import (
	"slices"
	"unsafe"
)

// Slabs.
//
// A scan hands out a new Row per row, and each Row owns its key, its
// items and a copy of each value: three or four allocations per row before
// the Row map itself, which on one core cost a scan about a sixth of its
// time. A multi-row read instead carves keys, values and items out of
// slabs, larger allocations shared by consecutive rows, the first small
// (a short read allocates little) and each after it twice as large, up to
// a bound.
//
// NB: what is handed out stays the caller's, as the API promises: every
// value and item slice is capped at its end, so an append copies instead
// of writing into the next row's bytes, and a key is a string over bytes
// nothing writes again. The cost is memory held: a value or row kept
// after the read keeps its whole slab (at most slabMax bytes, or
// itemSlabMax items) alive, as a value of Cloud Bigtable's Go client keeps
// the response message it came in alive.

const (
	slabFirst    = 4 << 10  // bytes of the first slab of a read
	slabMax      = 64 << 10 // bytes of a slab, at most
	slabMaxValue = 8 << 10  // a longer value or key gets an allocation of its own
	itemSlabMax  = 128      // items of a slab, at most
	itemSlabMin  = 8        // items of the first slab of a read
)

// slab hands out copies of keys, values and items from shared
// allocations. The zero value is ready to use. Not safe for concurrent
// use: each goroutine of a read has its own.
type slab struct {
	bytes     []byte
	bytesSize int
	items     []ReadItem
	itemsSize int
}

// copy returns a copy of b (nil when b is empty) that the caller may keep
// and change.
func (s *slab) copy(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if len(b) > slabMaxValue {
		return slices.Clone(b)
	}
	if cap(s.bytes)-len(s.bytes) < len(b) {
		s.bytesSize = min(max(2*s.bytesSize, slabFirst), slabMax)
		s.bytes = make([]byte, 0, s.bytesSize)
	}
	start := len(s.bytes)
	s.bytes = append(s.bytes, b...)
	return s.bytes[start:len(s.bytes):len(s.bytes)]
}

// str returns a string of b's bytes.
func (s *slab) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	c := s.copy(b)
	// NB: no one writes to c again: it is in no value handed out, and
	// the slab only appends past it.
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// cloneItems returns a copy of items, capped at its end.
func (s *slab) cloneItems(items []ReadItem) []ReadItem {
	n := len(items)
	if n > itemSlabMax/4 {
		return slices.Clone(items)
	}
	if cap(s.items)-len(s.items) < n {
		s.itemsSize = min(max(2*s.itemsSize, itemSlabMin), itemSlabMax)
		s.items = make([]ReadItem, 0, s.itemsSize)
	}
	start := len(s.items)
	s.items = append(s.items, items...)
	return s.items[start:len(s.items):len(s.items)]
}
