package bigtable

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// cursor walks the cell versions of one table in key order, restricted to a
// sorted list of disjoint key ranges, reading keys only.
//
// Contract:
//   - Call next until it returns false, then check err. Ranges are half-open,
//     [lo, hi), and visited in order.
//   - After next returns true, the fields describe the current cell.
//     family, qualifier and column are fresh strings, shared by every cell of
//     the same column, and stay valid for ever; rowKey returns the row as
//     such a string, made on first request (rowRaw holds its bytes until
//     the next call to next, so a reader can place the string itself, see
//     rowReader.addCell). item is valid only until the next call to next.
//   - index counts the stored versions of the current column before this
//     one, newest first, whether or not a GC policy hides them; it is the
//     position a MaxVersionsPolicy judges.
//   - The cursor does not own the Badger iterator; close it after use.
type cursor struct {
	it     *badger.Iterator
	ranges []keyRange
	ri     int
	moved  bool // it has been positioned in ranges[ri]
	// positioned: it is on the first key at or after a bound at or before
	// ranges[ri].lo: positioned by this iteration, or by the caller (a
	// reused iterator starts wherever its last user left it).
	positioned bool
	steps      int // Nexts worth taking to reach the next range (0: cursorSteps, <0: none)

	rowEnc    []byte // escaped row part of the current cell
	rowBuf    []byte // unescaped row, when it holds escapes
	rowRaw    []byte // the current row key (aliases rowEnc or rowBuf)
	qualEnc   []byte // escaped qualifier part of the current cell
	row       string // the current row key once rowKey made it, else ""
	started   bool   // a cell has been decoded
	famKnown  bool   // family and fam describe the last family decoded
	family    string
	qualifier string
	column    string
	newRow    bool // the current cell is the first of its row
	ts        Timestamp
	index     int
	item      *badger.Item
	err       error

	schema *tableSchema  // if set, family strings come from it, and fam is set
	fam    *familySchema // schema of the current family, nil if undeclared
	hint   string        // a likely row key, used instead of a new string when it matches
	last   lastColumn    // the column of the iteration before reset, whose qualifier qualEnc holds

	// families, when not nil, lists (sorted) the only families whose cells
	// next returns; it steps, or seeks, over the others (see readFamilies).
	families  []string
	famWanted bool   // the last family decoded is in families
	rowOpen   bool   // a cell of the current row has been returned
	skipped   int    // cells stepped over since the last one returned
	sought    bool   // it was moved by a Seek past skipped cells: no Next
	seekBuf   []byte // the key that Seek goes to
	visited   int    // cells decoded, for tests
}

// reset points c at a new iteration, keeping its buffers, and the strings
// of the last column it decoded (see lastColumn).
func (c *cursor) reset(it *badger.Iterator, ranges []keyRange, ts *tableSchema) {
	*c = cursor{it: it, ranges: ranges, schema: ts, hint: c.hint,
		rowEnc: c.rowEnc[:0], rowBuf: c.rowBuf[:0], qualEnc: c.qualEnc, seekBuf: c.seekBuf[:0],
		last: c.lastColumn()}
}

// lastColumn returns the column c decoded last, for the next iteration.
func (c *cursor) lastColumn() lastColumn {
	if !c.famKnown {
		return c.last
	}
	return lastColumn{family: c.family, qualifier: c.qualifier, column: c.column}
}

// lastColumn is the column a cursor decoded last, whose escaped qualifier
// is still in qualEnc: a point read of a row with the same column as the
// one before (one column per row, as in many tables) makes no strings.
type lastColumn struct{ family, qualifier, column string }

// done reports whether next went through every range without an error:
// the iterator is then on the first key at or after the last range's end,
// or past the last key.
func (c *cursor) done() bool { return c.err == nil && c.ri >= len(c.ranges) }

// rowKey returns the current row key as a string that stays valid, making
// it on the first call for each row.
func (c *cursor) rowKey() string {
	if c.row == "" {
		if string(c.rowRaw) == c.hint {
			c.row = c.hint
		} else {
			c.row = string(c.rowRaw)
		}
	}
	return c.row
}

// cursorSteps is how many Nexts the cursor takes, at most, to reach the
// next range before it seeks instead.
const cursorSteps = 8

// newIterator opens a key-only iterator over ranges, restricted to their
// common prefix so that Badger can skip tables that cannot hold them.
func newIterator(txn *badger.Txn, ranges []keyRange) *badger.Iterator {
	var prefix []byte
	if len(ranges) > 0 {
		prefix = commonPrefix(ranges[0].lo, ranges[len(ranges)-1].hi)
	}
	return txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
}

func commonPrefix(a, b []byte) []byte {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n:n]
}

func newCursor(it *badger.Iterator, ranges []keyRange) *cursor {
	return &cursor{it: it, ranges: ranges}
}

func (c *cursor) next() bool {
	if c.err != nil {
		return false
	}
	for c.ri < len(c.ranges) {
		r := c.ranges[c.ri]
		if !c.moved {
			// NB: ranges are sorted and disjoint, and the key that ended
			// the last range is the first one past it: when it is already
			// at or past this range's start, or a few Nexts get there, a
			// Seek (a dozen Nexts' worth) is not needed. A RowList of rows
			// that do not exist yet costs one Seek, not one per row.
			steps := c.steps
			switch {
			case steps == 0:
				steps = cursorSteps
			case steps < 0:
				steps = 0 // look where it is, take no Next
			}
			if !c.positioned || !closeAhead(c.it, r.lo, steps) {
				c.it.Seek(r.lo)
			}
			c.positioned, c.steps = true, cursorSteps
			c.moved = true
		} else if c.sought {
			c.sought = false
		} else {
			c.it.Next()
		}
		if !c.it.Valid() {
			c.ri = len(c.ranges)
			return false
		}
		item := c.it.Item()
		key := item.Key()
		if bytes.Compare(key, r.hi) >= 0 {
			c.ri++
			c.moved = false
			continue
		}
		if err := c.decode(key); err != nil {
			c.err = err
			return false
		}
		c.visited++
		if c.newRow {
			c.rowOpen = false
		}
		if c.families != nil && !c.famWanted {
			c.skip(key)
			continue
		}
		c.skipped = 0
		// NB: newRow is true for the first cell of a row returned, which
		// is not the row's first cell when cells before it were skipped.
		c.newRow, c.rowOpen = !c.rowOpen, true
		c.item = item
		return true
	}
	return false
}

// skip steps over the cell at key, of a family not in c.families. A few
// cells are stepped over one by one; past cursorSteps, it seeks to the
// next wanted family of the row, or to the row's end, so that reading one
// family of a row costs the same however many cells other families hold.
func (c *cursor) skip(key []byte) {
	c.skipped++
	if c.skipped <= cursorSteps {
		return
	}
	c.skipped = 0
	// The row part of key, with its terminator.
	n := tablePrefixLen + len(c.rowEnc) + 2
	c.seekBuf = append(c.seekBuf[:0], key[:n]...)
	if i, _ := slices.BinarySearch(c.families, c.family); i < len(c.families) {
		// Family names hold no 0x00: no escape, and byte order is
		// string order.
		c.seekBuf = appendEscaped(c.seekBuf, c.families[i])
	} else {
		c.seekBuf[n-1]++ // rowSuccessor, in place
	}
	c.it.Seek(c.seekBuf)
	c.sought = true
}

// decode parses key into the current-cell fields, allocating strings only
// when the row or column changes.
func (c *cursor) decode(key []byte) error {
	if len(key) < tablePrefixLen {
		return fmt.Errorf("%w: %q", errBadKey, key)
	}
	rest, rowPart, err := splitEscaped(key[tablePrefixLen:])
	if err != nil {
		return fmt.Errorf("%w: %q", err, key)
	}
	c.newRow = !c.started || !bytes.Equal(rowPart, c.rowEnc)
	if c.newRow {
		c.started = true
		c.rowEnc = append(c.rowEnc[:0], rowPart...)
		c.rowRaw = c.rowEnc
		if bytes.IndexByte(rowPart, escByte) >= 0 {
			c.rowBuf = appendUnescaped(c.rowBuf[:0], rowPart)
			c.rowRaw = c.rowBuf
		}
		c.row = ""
	}
	rest, famPart, err := splitEscaped(rest)
	if err != nil {
		return fmt.Errorf("%w: %q", err, key)
	}
	rest, qualPart, err := splitEscaped(rest)
	if err != nil {
		return fmt.Errorf("%w: %q", err, key)
	}
	// NB: family, qualifier and column strings carry over from row to
	// row while their bytes repeat, as they do in most tables, so a scan
	// makes them once, not once per row.
	famChanged := !c.famKnown || string(famPart) != c.family
	if famChanged {
		// Family names hold no 0x00: nothing to unescape.
		c.famKnown = true
		c.fam = nil
		if c.schema != nil {
			c.fam = c.schema.families[string(famPart)]
		}
		if c.fam != nil {
			c.family = c.fam.name
		} else {
			c.family = string(famPart)
		}
		c.famWanted = c.families == nil
		if !c.famWanted {
			_, c.famWanted = slices.BinarySearch(c.families, c.family)
		}
	}
	qualChanged := famChanged || !bytes.Equal(qualPart, c.qualEnc)
	if qualChanged && c.last.column != "" && c.family == c.last.family && bytes.Equal(qualPart, c.qualEnc) {
		// The column of the iteration before (see reset), whose
		// qualifier qualEnc holds until the first column decoded since.
		c.qualifier, c.column = c.last.qualifier, c.last.column
		c.last = lastColumn{}
	} else if qualChanged {
		c.last = lastColumn{}
		c.qualEnc = append(c.qualEnc[:0], qualPart...)
		if len(qualPart) == 0 && c.fam != nil {
			c.qualifier, c.column = "", c.fam.colon
		} else {
			// NB: one string for both: the qualifier is the column's tail.
			c.column = c.family + ":" + string(unescape(qualPart))
			c.qualifier = c.column[len(c.family)+1:]
		}
	}
	if c.newRow || qualChanged {
		c.index = 0
	} else {
		c.index++
	}
	if _, c.ts, err = decodeTimestamp(rest); err != nil {
		return fmt.Errorf("%w: %q", err, key)
	}
	return nil
}
