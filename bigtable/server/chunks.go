package server

import (
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/hooks"
	"google.golang.org/protobuf/encoding/protowire"
)

// NB: ReadRows responses are written straight in protobuf wire form rather
// than built as ReadRowsResponse objects and marshalled: a scan sends every
// cell of the table, and an object per chunk (with wrappers for its family
// and qualifier) then reflection-driven marshalling cost more than the
// store's read. The field numbers are those of google/bigtable/v2/
// bigtable.proto; TestReadRowsChunks checks the bytes decode to the
// messages meant.

// Field numbers of ReadRowsResponse.CellChunk (and of the value field of
// the StringValue and BytesValue wrappers, 1).
const (
	fieldChunks    = 1 // ReadRowsResponse.chunks
	fieldRowKey    = 1
	fieldFamily    = 2
	fieldQualifier = 3
	fieldTimestamp = 4
	fieldValue     = 6
	fieldValueSize = 7
	fieldCommitRow = 9
	fieldWrapped   = 1
)

// chunk is one CellChunk to encode.
type chunk struct {
	key             []byte
	hasKey          bool
	family          string
	qualifier       string
	hasFam, hasQual bool
	ts              int64
	value           []byte
	valueSize       int32
	commit          bool
}

func wrapperSize(n int) int {
	if n == 0 {
		return 0
	}
	return protowire.SizeTag(fieldWrapped) + protowire.SizeBytes(n)
}

func (c *chunk) size() int {
	n := 0
	if c.hasKey {
		n += protowire.SizeTag(fieldRowKey) + protowire.SizeBytes(len(c.key))
	}
	if c.hasFam {
		n += protowire.SizeTag(fieldFamily) + protowire.SizeBytes(wrapperSize(len(c.family)))
	}
	if c.hasQual {
		n += protowire.SizeTag(fieldQualifier) + protowire.SizeBytes(wrapperSize(len(c.qualifier)))
	}
	if c.ts != 0 {
		n += protowire.SizeTag(fieldTimestamp) + protowire.SizeVarint(uint64(c.ts))
	}
	if len(c.value) > 0 {
		n += protowire.SizeTag(fieldValue) + protowire.SizeBytes(len(c.value))
	}
	if c.valueSize != 0 {
		n += protowire.SizeTag(fieldValueSize) + protowire.SizeVarint(uint64(int64(c.valueSize)))
	}
	if c.commit {
		n += protowire.SizeTag(fieldCommitRow) + 1
	}
	return n
}

func appendWrapped(b []byte, field protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(wrapperSize(len(s))))
	if len(s) > 0 {
		b = protowire.AppendTag(b, fieldWrapped, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	return b
}

// appendChunk appends c as one element of ReadRowsResponse.chunks.
func (c *chunk) appendTo(b []byte) []byte {
	b = protowire.AppendTag(b, fieldChunks, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(c.size()))
	if c.hasKey {
		b = protowire.AppendTag(b, fieldRowKey, protowire.BytesType)
		b = protowire.AppendBytes(b, c.key)
	}
	if c.hasFam {
		b = appendWrapped(b, fieldFamily, c.family)
	}
	if c.hasQual {
		b = appendWrapped(b, fieldQualifier, c.qualifier)
	}
	if c.ts != 0 {
		b = protowire.AppendTag(b, fieldTimestamp, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(c.ts))
	}
	if len(c.value) > 0 {
		b = protowire.AppendTag(b, fieldValue, protowire.BytesType)
		b = protowire.AppendBytes(b, c.value)
	}
	if c.valueSize != 0 {
		b = protowire.AppendTag(b, fieldValueSize, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(c.valueSize)))
	}
	if c.commit {
		b = protowire.AppendTag(b, fieldCommitRow, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return b
}

// chunker encodes rows as ReadRowsResponses: the row key, family and
// qualifier only when they change, values over maxChunkValue split with
// value_size, the row's last chunk committing it.
type chunker struct {
	resps []encoded
	cur   []byte // the response being written
	total int    // bytes in resps and cur
}

// row encodes one Row, as cells does; the no-op benchmark server and the
// tests encode Rows.
func (c *chunker) row(r bigtable.Row) {
	var h hooks.Row
	for _, fam := range sortedFamilies(r, nil) {
		for _, it := range r[fam] {
			h.Key = []byte(it.Row)
			h.Cells = append(h.Cells, hooks.Cell{Family: fam, Qualifier: it.Column[len(fam)+1:], Timestamp: int64(it.Timestamp), Value: it.Value})
		}
	}
	c.cells(&h)
}

// cells encodes one row as the store hands it out (see hooks.ReadCells);
// a row without cells sends nothing. It keeps no reference to r.
// NB: a row never spans two responses: the Go client checks after each
// response that no row is left half read.
func (c *chunker) cells(r *hooks.Row) {
	if len(r.Cells) == 0 {
		return
	}
	if len(c.cur) >= responseBytes {
		c.finish()
	}
	if c.cur == nil {
		c.cur = (*respPool.Get(0))[:0]
	}
	before := len(c.cur)
	for i := range r.Cells {
		cl := &r.Cells[i]
		newFam := i == 0 || cl.Family != r.Cells[i-1].Family
		ch := chunk{key: r.Key, hasKey: i == 0, ts: cl.Timestamp, family: cl.Family, hasFam: newFam,
			qualifier: cl.Qualifier, hasQual: newFam || cl.Qualifier != r.Cells[i-1].Qualifier}
		last := i == len(r.Cells)-1
		v := cl.Value
		if len(v) <= maxChunkValue {
			ch.value, ch.commit = v, last
			c.cur = ch.appendTo(c.cur)
			continue
		}
		// A long value: the first chunk names the cell, the rest carry
		// only bytes; all but the last say the whole size.
		size := int32(len(v))
		ch.value, ch.valueSize = v[:maxChunkValue], size
		c.cur = ch.appendTo(c.cur)
		for rest := v[maxChunkValue:]; len(rest) > 0; {
			part := chunk{value: rest[:min(len(rest), maxChunkValue)]}
			rest = rest[len(part.value):]
			if len(rest) > 0 {
				part.valueSize = size
			} else {
				part.commit = last
			}
			c.cur = part.appendTo(c.cur)
		}
	}
	c.total += len(c.cur) - before
}

// finish ends the response being written.
func (c *chunker) finish() {
	if len(c.cur) > 0 {
		b := c.cur
		c.resps = append(c.resps, encoded{buf: &b, pool: respPool})
	}
	c.cur = nil
}

// flush returns the responses encoded so far and starts afresh.
func (c *chunker) flush() []encoded {
	c.finish()
	out := c.resps
	*c = chunker{}
	return out
}
