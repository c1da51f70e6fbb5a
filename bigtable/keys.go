package bigtable

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Key encoding.
//
// Every key in the Badger store starts with one byte naming its key space:
//
//	0x00  metadata: the store format marker, the table-id counter, one
//	      schema record per table ("\x00" "t" name -> JSON) and one record
//	      per tablet ("\x00" "b" table id, start row -> end row and sizes).
//	0x01  cells: one Badger key per cell version.
//
// A cell key is a tuple (table, row, family, qualifier, timestamp):
//
//	0x01 | table id (uint32, big-endian)
//	     | esc(row)       0x00 0x01
//	     | esc(family)    0x00 0x01
//	     | esc(qualifier) 0x00 0x01
//	     | ^uint64(timestamp), big-endian
//
// esc replaces every 0x00 byte by 0x00 0xFF, so the terminator 0x00 0x01 is
// smaller than any escaped byte that can follow a part's shared prefix. Two
// consequences make the layout work:
//
//   - Byte order of keys equals tuple order. A row that is a prefix of
//     another sorts first ("a" -> 61 00 01 < "a\x00" -> 61 00 FF 00 01 <
//     "ab" -> 61 62 00 01), so rows come out in plain byte order, a row's
//     cells are contiguous, and a column's versions are adjacent.
//   - The inverted timestamp puts the newest version of a column first.
//
// Worked example: table id 7, row "com.cnn.www", column "anchor:cnnsi.com",
// timestamp 9 encodes as
//
//	01 00 00 00 07
//	63 6f 6d 2e 63 6e 6e 2e 77 77 77  00 01    "com.cnn.www"
//	61 6e 63 68 6f 72                 00 01    "anchor"
//	63 6e 6e 73 69 2e 63 6f 6d        00 01    "cnnsi.com"
//	ff ff ff ff ff ff ff f6                    ^uint64(9)
//
// and a qualifier "a\x00b" would be written 61 00 ff 62 00 01.
//
// Prefix scans use the escaped prefix without its terminator: every row
// starting with "com.cnn." has a key starting with 01 00 00 00 07 followed by
// esc("com.cnn."), and no other row does.
//
// Encoders append to dst and return the extended slice; decoders return
// (rest, value, err) and never retain the input.

const (
	metaSpace byte = 0x00
	dataSpace byte = 0x01

	escByte  = 0x00
	escFF    = 0xFF
	termByte = 0x01

	tablePrefixLen = 5 // data space byte + uint32 table id
	tsLen          = 8
)

// errBadKey reports a key that does not decode; it means a corrupt or foreign store.
var errBadKey = errors.New("bigtable: malformed cell key")

// appendEscaped appends esc(s) and the terminator 0x00 0x01.
func appendEscaped(dst []byte, s string) []byte {
	dst = appendEscapedPrefix(dst, s)
	return append(dst, escByte, termByte)
}

// appendEscapedPrefix appends esc(s) without a terminator, for prefix scans.
func appendEscapedPrefix(dst []byte, s string) []byte {
	for {
		i := indexZero(s)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, escFF)
		s = s[i+1:]
	}
}

func indexZero(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// splitEscaped splits off one escaped, terminated part of b. It returns the
// part still escaped (without terminator) and the bytes after the terminator.
// The returned slices alias b.
func splitEscaped(b []byte) (rest, part []byte, err error) {
	off := 0
	for {
		i := bytes.IndexByte(b[off:], escByte)
		if i < 0 || off+i+1 >= len(b) {
			return nil, nil, errBadKey
		}
		i += off
		switch b[i+1] {
		case termByte:
			return b[i+2:], b[:i], nil
		case escFF:
			off = i + 2
		default:
			return nil, nil, errBadKey
		}
	}
}

// unescape returns the bytes an escaped part stands for. When the part holds
// no escapes, the result aliases part.
func unescape(part []byte) []byte {
	if bytes.IndexByte(part, escByte) < 0 {
		return part
	}
	return appendUnescaped(make([]byte, 0, len(part)), part)
}

// appendUnescaped appends the bytes an escaped part stands for to dst.
func appendUnescaped(dst, part []byte) []byte {
	for i := 0; i < len(part); i++ {
		dst = append(dst, part[i])
		if part[i] == escByte {
			i++ // skip the 0xFF that follows every escaped 0x00
		}
	}
	return dst
}

// decodeEscaped decodes one escaped, terminated part of b.
func decodeEscaped(b []byte) (rest []byte, s string, err error) {
	rest, part, err := splitEscaped(b)
	if err != nil {
		return nil, "", err
	}
	return rest, string(unescape(part)), nil
}

// appendTablePrefix appends the prefix shared by every cell of a table.
func appendTablePrefix(dst []byte, table uint32) []byte {
	dst = append(dst, dataSpace)
	return binary.BigEndian.AppendUint32(dst, table)
}

// appendRowKey appends the prefix shared by every cell of a row.
func appendRowKey(dst []byte, table uint32, row string) []byte {
	return appendEscaped(appendTablePrefix(dst, table), row)
}

// appendColumnKey appends the prefix shared by every version of a column.
func appendColumnKey(dst []byte, table uint32, row, family, qualifier string) []byte {
	dst = appendRowKey(dst, table, row)
	dst = appendEscaped(dst, family)
	return appendEscaped(dst, qualifier)
}

// appendTimestamp appends ^uint64(ts), so that newer versions sort first.
func appendTimestamp(dst []byte, ts Timestamp) []byte {
	return binary.BigEndian.AppendUint64(dst, ^uint64(ts))
}

// appendCellKey appends the full key of one cell version.
func appendCellKey(dst []byte, table uint32, row, family, qualifier string, ts Timestamp) []byte {
	return appendTimestamp(appendColumnKey(dst, table, row, family, qualifier), ts)
}

// cellKey is a decoded cell key.
type cellKey struct {
	table             uint32
	row               string
	family, qualifier string
	ts                Timestamp
}

// decodeCellKey decodes a full cell key.
func decodeCellKey(b []byte) (rest []byte, k cellKey, err error) {
	if len(b) < tablePrefixLen || b[0] != dataSpace {
		return nil, k, errBadKey
	}
	k.table = binary.BigEndian.Uint32(b[1:tablePrefixLen])
	b = b[tablePrefixLen:]
	if b, k.row, err = decodeEscaped(b); err != nil {
		return nil, cellKey{}, err
	}
	if b, k.family, err = decodeEscaped(b); err != nil {
		return nil, cellKey{}, err
	}
	if b, k.qualifier, err = decodeEscaped(b); err != nil {
		return nil, cellKey{}, err
	}
	if b, k.ts, err = decodeTimestamp(b); err != nil {
		return nil, cellKey{}, err
	}
	return b, k, nil
}

// decodeTimestamp decodes an inverted big-endian timestamp.
func decodeTimestamp(b []byte) (rest []byte, ts Timestamp, err error) {
	if len(b) < tsLen {
		return nil, 0, errBadKey
	}
	return b[tsLen:], Timestamp(^binary.BigEndian.Uint64(b)), nil
}

// rowSuccessor returns the smallest encoded row bound above every key of the
// row whose terminated encoding ends enc: the terminator 0x00 0x01 becomes
// 0x00 0x02, which no escaped byte and no other terminator can reach.
func rowSuccessor(enc []byte) []byte {
	out := append([]byte(nil), enc...)
	out[len(out)-1]++
	return out
}

// Metadata keys.
var (
	metaFormatKey = []byte{metaSpace, 'f'} // store format marker
	metaNextIDKey = []byte{metaSpace, 'n'} // next table id, uint32 big-endian
	metaTablePfx  = []byte{metaSpace, 't'} // + table name -> schema JSON
	metaTabletPfx = []byte{metaSpace, 'b'} // + table id + start row -> tablet (see tablet.go)
)

func metaTableKey(name string) []byte {
	return append(append([]byte(nil), metaTablePfx...), name...)
}
