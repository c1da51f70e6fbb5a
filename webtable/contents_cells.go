package webtable

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// The contents cells of a version or a sighting, one by one as an import
// and a web-archive export handle them, and the cells they are stored as:
// contents:meta packs a version's status, URL, truncation and headers,
// contents:seen a sighting's sha256 and the same facts.

// cells are the contents cells of a version or a sighting (contents:seen
// aside), by qualifier, with status, url, headers and truncated each its
// own (stored packed in contents:meta, see stored).
type cells []cell

// cell is one contents cell: its qualifier and value.
type cell struct {
	q string
	v []byte
}

// pageCells are the contents cells of a version of p's body (sha256
// hexSum), what setContents writes: contents:html, sha256, status, url
// (the URL fetched), headers (when the page carries them) and truncated
// (when the body was cut): what a web archive needs beside the body.
func pageCells(p *Page, hexSum string) cells {
	c := cells{{colHTML, p.Body}, {colSHA256, []byte(hexSum)}, {colStatus, []byte(strconv.Itoa(p.Fetch.Status))}, {colFetched, []byte(p.Fetch.URL)}}
	if len(p.Headers) > 0 {
		c = append(c, cell{colHeaders, p.Headers})
	}
	if p.Fetch.Truncated {
		c = append(c, cell{colTruncated, []byte("true")})
	}
	return c
}

// get returns the value of qualifier q (nil when absent).
func (c cells) get(q string) []byte {
	for _, x := range c {
		if x.q == q {
			return x.v
		}
	}
	return nil
}

// with returns c with qualifier q set to v (c is not changed).
func (c cells) with(q string, v []byte) cells {
	out := make(cells, 0, len(c)+1)
	for _, x := range c {
		if x.q != q {
			out = append(out, x)
		}
	}
	return append(out, cell{q, v})
}

// hasFacts reports whether c holds a capture's status or URL (a sighting
// stored before those were kept holds neither).
func (c cells) hasFacts() bool { return c.get(colStatus) != nil || c.get(colFetched) != nil }

// stored is c as it is written: its status, URL, truncation and headers
// packed into one contents:meta cell (see encodeMeta) beside the body and
// its sha256.
//
// NB: one cell, not four: each stored cell costs a crawl about as much as
// the next.
func (c cells) stored() cells {
	out := make(cells, 0, 3)
	for _, x := range c {
		switch x.q {
		case colStatus, colFetched, colHeaders, colTruncated:
		default:
			out = append(out, x)
		}
	}
	if c.hasFacts() {
		out = append(out, cell{colMeta, encodeMeta(c)})
	}
	return out
}

// encodeMeta is the value of contents:meta for the cells c of a version:
// the status, "truncated" when the body was cut, and the URL fetched on
// the first line, then the status line and headers as received, for
// example
//
//	200 http://www.cnn.com/
//	HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n
//
// Headers are stored byte for byte (they may not be UTF-8): they run to
// the end of the value.
func encodeMeta(c cells) []byte {
	url, h := c.get(colFetched), c.get(colHeaders)
	v := make([]byte, 0, 4+len(" truncated ")+len(url)+1+len(h))
	v = append(v, c.get(colStatus)...)
	v = append(v, ' ')
	if string(c.get(colTruncated)) == "true" {
		v = append(v, "truncated "...)
	}
	v = append(v, url...)
	v = append(v, '\n')
	return append(v, h...)
}

// decodeMeta reads a contents:meta value into the cells it packs: status
// and url, headers when there are some, truncated ("true") when the body
// was cut.
func decodeMeta(v []byte) (cells, error) {
	line, h, ok := bytes.Cut(v, []byte("\n"))
	if !ok {
		return nil, errors.New("no line break after the status and URL")
	}
	status, url, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return nil, errors.New("want <status> [truncated] <url> on the first line")
	}
	if _, err := strconv.Atoi(string(status)); err != nil {
		return nil, fmt.Errorf("the status: %w", err)
	}
	c := make(cells, 0, 4)
	c = append(c, cell{colStatus, status})
	if rest, ok := bytes.CutPrefix(url, []byte("truncated ")); ok {
		url = rest
		c = append(c, cell{colTruncated, []byte("true")})
	}
	c = append(c, cell{colFetched, url})
	if len(h) > 0 {
		c = append(c, cell{colHeaders, h})
	}
	return c, nil
}

// encodeSeen is the value of contents:seen for a sighting of the body with
// sha256 sum: the sum, then, one a line, the capture's status, truncation
// ("true" or "") and URL, then its headers to the end.
//
// NB: one cell, not the version's columns: each contents column keeps
// [Options.Versions] cells, and a sighting's would crowd out the versions'.
func encodeSeen(sum string, c cells) []byte {
	if !c.hasFacts() {
		return []byte(sum)
	}
	return fmt.Appendf(nil, "%s\n%s\n%s\n%s\n%s", sum, c.get(colStatus), c.get(colTruncated), c.get(colFetched), c.get(colHeaders))
}

// decodeSeen reads a contents:seen value: the sha256 and the capture's
// cells (none for a sighting stored before they were kept).
func decodeSeen(v []byte) (sum string, c cells) {
	parts := bytes.SplitN(v, []byte("\n"), 5)
	if len(parts) < 5 {
		return string(v), nil
	}
	c = cells{{colStatus, parts[1]}, {colFetched, parts[3]}}
	if len(parts[4]) > 0 {
		c = append(c, cell{colHeaders, parts[4]})
	}
	if string(parts[2]) == "true" {
		c = append(c, cell{colTruncated, parts[2]})
	}
	return string(parts[0]), c
}
