package archive

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// capture turns a response or resource record, dated t, into a Capture.
func (r *Reader) capture(w gowarc.WarcRecord, uri string, t time.Time) (*Capture, error) {
	c := &Capture{URL: uri, Time: t}
	var payload io.Reader
	var err error
	var header http.Header
	switch b := w.Block().(type) {
	case gowarc.HttpResponseBlock:
		c.Status = b.HttpStatusCode()
		c.Header = b.ProtocolHeaderBytes()
		// NB: not b.HttpHeader(): net/http moves Transfer-Encoding out
		// of the header it parses, and decode needs it.
		header = parseHeader(c.Header)
		c.ContentType = header.Get("Content-Type")
		payload, err = b.PayloadBytes()
	default:
		if w.Type() == gowarc.Response {
			return nil, fmt.Errorf("response record of %s: its block is not an HTTP response (Content-Type %q)", c.URL, w.WarcHeader().Get(gowarc.ContentType))
		}
		c.Status = http.StatusOK
		c.ContentType = w.WarcHeader().Get(gowarc.ContentType)
		payload, err = w.Block().RawBytes()
	}
	if err != nil {
		return nil, fmt.Errorf("%s record of %s: %w", w.Type(), c.URL, err)
	}
	body, err := decode(payload, header)
	if err != nil {
		return nil, fmt.Errorf("%s record of %s: decoding the body: %w", w.Type(), c.URL, err)
	}
	c.Body, c.Truncated, err = readMax(body, r.maxBody)
	if err != nil {
		return nil, fmt.Errorf("%s record of %s: reading the body: %w", w.Type(), c.URL, err)
	}
	if c.Body == nil {
		c.Body = []byte{}
	}
	return c, nil
}

// parseHeader reads the header fields after an HTTP status line; lines it
// cannot read are left out (the body is then taken as it is).
func parseHeader(raw []byte) http.Header {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	if _, err := tp.ReadLine(); err != nil {
		return http.Header{}
	}
	h, _ := tp.ReadMIMEHeader()
	return http.Header(h)
}

// decode removes the chunking and Content-Encoding header names from a
// payload; an encoding it does not know is left as it is.
func decode(payload io.Reader, h http.Header) (io.Reader, error) {
	if h == nil {
		return payload, nil
	}
	for _, te := range h.Values("Transfer-Encoding") {
		if strings.Contains(strings.ToLower(te), "chunked") {
			payload = httputil.NewChunkedReader(bufio.NewReader(payload))
			break
		}
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))) {
	case "gzip", "x-gzip":
		return gzip.NewReader(payload)
	case "deflate":
		br := bufio.NewReader(payload)
		// Servers send either zlib (what the RFC says) or raw deflate.
		if magic, err := br.Peek(2); err == nil && magic[0]&0x0f == 8 && (uint16(magic[0])<<8|uint16(magic[1]))%31 == 0 {
			return zlib.NewReader(br)
		}
		return flate.NewReader(br), nil
	}
	return payload, nil
}

// readMax reads r, keeping at most max bytes (0 = all); truncated says
// there were more.
//
// NB: it reads one byte past max to know, and no further: the rest of a
// body is never decoded (a small gzipped payload can inflate to
// gigabytes), so the work per record is bounded by max. The record's raw
// bytes are still read to its end, by the WARC library.
func readMax(r io.Reader, max int64) (body []byte, truncated bool, err error) {
	if max <= 0 {
		body, err = io.ReadAll(r)
		return body, false, err
	}
	body, err = io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) > max {
		return body[:max:max], true, nil
	}
	return body, false, nil
}
