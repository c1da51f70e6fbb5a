package archive

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// warcDate is how WARC-Date is written: UTC with milliseconds (WARC 1.1
// allows fractions of a second; versions a crawl stores can be
// milliseconds apart).
const warcDate = "2006-01-02T15:04:05.000Z"

// Writer writes a gzipped WARC 1.1 file, one gzip member per record, and
// remembers the CDXJ line of each capture it writes. It is not safe for
// concurrent use.
type Writer struct {
	out    *countingWriter
	gz     *gzip.Writer
	m      gowarc.Marshaler
	name   string // the file name in CDXJ lines
	infoID string
	index  index
	// seen holds, with Dedupe, the first record of each payload written.
	seen     map[string]firstWritten
	revisits int
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewWriter starts a WARC file on w with its warcinfo record; filename is
// the file's name as CDXJ lines give it (its base name) and software names
// the program in the warcinfo record.
func NewWriter(w io.Writer, filename, software string) (*Writer, error) {
	gz, err := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	wr := &Writer{out: &countingWriter{w: w}, gz: gz, m: gowarc.NewMarshaler(), name: filename, index: index{limit: indexRunBytes}}
	info := fmt.Sprintf("software: %s\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n", software)
	rb := newBuilder(gowarc.Warcinfo, len(info))
	rb.AddWarcHeader(gowarc.WarcDate, time.Now().UTC().Format(warcDate))
	rb.AddWarcHeader(gowarc.WarcFilename, filename)
	rb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	rb.WriteString(info)
	rec, _, err := rb.Build()
	if err != nil {
		return nil, fmt.Errorf("archive: building the warcinfo record: %w", err)
	}
	wr.infoID = "<" + strings.Trim(rec.RecordId(), "<>") + ">"
	if _, _, err := wr.writeRecord(rec); err != nil {
		return nil, err
	}
	return wr, nil
}

// newBuilder is a record builder that trusts what it is given (the
// writer computes lengths and digests itself) and keeps a block of size
// bytes in memory.
func newBuilder(t gowarc.RecordType, size int) gowarc.WarcRecordBuilder {
	return gowarc.NewRecordBuilder(t, gowarc.WithNoValidation(), gowarc.WithBufferMaxMemBytes(int64(size)+1))
}

// buildCapture builds the record of type t for capture c on date: its
// block, the SHA-1 of its payload, its Content-Type (none when ""), and
// the headers extra (name, value pairs) after WARC-Warcinfo-ID.
func (w *Writer) buildCapture(t gowarc.RecordType, c *Capture, date, contentType string, block []byte, payload string, extra ...string) (gowarc.WarcRecord, error) {
	rb := newBuilder(t, len(block))
	rb.AddWarcHeader(gowarc.WarcTargetURI, c.URL)
	rb.AddWarcHeader(gowarc.WarcDate, date)
	rb.AddWarcHeader(gowarc.WarcWarcinfoID, w.infoID)
	for i := 0; i+1 < len(extra); i += 2 {
		rb.AddWarcHeader(extra[i], extra[i+1])
	}
	if contentType != "" {
		rb.AddWarcHeader(gowarc.ContentType, contentType)
	}
	rb.AddWarcHeader(gowarc.WarcBlockDigest, "sha1:"+sha1Base32(block))
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, "sha1:"+payload)
	if c.Truncated {
		rb.AddWarcHeader(gowarc.WarcTruncated, "length")
	}
	rb.Write(block)
	rec, _, err := rb.Build()
	return rec, err
}

// writeRecord writes rec as one gzip member and returns its offset and
// length in the file.
func (w *Writer) writeRecord(rec gowarc.WarcRecord) (offset, length int64, err error) {
	defer rec.Close()
	offset = w.out.n
	w.gz.Reset(w.out)
	if _, _, err := w.m.Marshal(w.gz, rec, 0); err != nil {
		return 0, 0, fmt.Errorf("archive: writing %s record: %w", rec.Type(), err)
	}
	if err := w.gz.Close(); err != nil {
		return 0, 0, fmt.Errorf("archive: writing %s record: %w", rec.Type(), err)
	}
	return offset, w.out.n - offset, nil
}

// Write writes c as a response record (a resource record when c.Header is
// nil) and remembers its CDXJ line.
func (w *Writer) Write(c *Capture) error {
	var block []byte
	t := gowarc.Response
	contentType := "application/http; msgtype=response"
	mime := c.MIME
	if c.Header != nil {
		hdr, ct, err := consistentHeader(c.Header, len(c.Body))
		if err != nil {
			return fmt.Errorf("archive: %s at %s: %w", c.URL, c.Time.UTC().Format(warcDate), err)
		}
		block = append(hdr, c.Body...)
		mime = mediaType(ct)
	} else {
		t = gowarc.Resource
		if mime == "" {
			mime = "application/octet-stream"
		}
		contentType = mime
		block = c.Body
	}
	payload := sha1Base32(c.Body)
	date := c.Time.UTC().Format(warcDate)
	if w.seen != nil {
		if first, ok := w.seen[payload]; ok {
			id, err := w.writeRevisit(c, first, payload, date)
			if err != nil || c.Rendered == nil {
				return err
			}
			// NB: the page the browser built is not the payload the
			// revisit stands for: it keeps its own record.
			return w.writeConversion(c, id, date)
		}
		w.seen[payload] = firstWritten{uri: c.URL, date: date}
	}
	rec, err := w.buildCapture(t, c, date, contentType, block, payload)
	if err != nil {
		return fmt.Errorf("archive: building the record of %s: %w", c.URL, err)
	}
	id := "<" + strings.Trim(rec.RecordId(), "<>") + ">"
	off, n, err := w.writeRecord(rec)
	if err != nil {
		return err
	}
	if c.Rendered != nil {
		if err := w.writeConversion(c, id, date); err != nil {
			return err
		}
	}
	status := 0
	if t == gowarc.Response {
		status = c.Status
	}
	return w.index.add(cdxjLine(c.URL, date, mime, status, payload, n, off, w.name))
}

// WriteIndex writes the CDXJ lines of the captures written to out, sorted
// by bytes (as pywb expects), one per line. Lines beyond 32 MiB wait in
// sorted temporary files, which it merges. Call it once, after the last
// Write; without it, call Close.
func (w *Writer) WriteIndex(out io.Writer) error { return w.index.writeTo(out) }

// Close releases the temporary files of the index, if WriteIndex was not
// called. The WARC itself needs no closing: each record is complete.
func (w *Writer) Close() error {
	w.index.close()
	return nil
}

// Size is the number of bytes written so far.
func (w *Writer) Size() int64 { return w.out.n }

func sha1Base32(b []byte) string {
	sum := sha1.Sum(b)
	return base32.StdEncoding.EncodeToString(sum[:])
}

// consistentHeader rewrites a stored status line and header for a body of
// n bytes that is no longer encoded or chunked: Content-Encoding and
// Transfer-Encoding are dropped and Content-Length set to n, and an
// HTTP/2 or /3 status line says HTTP/1.1. The other lines keep their order
// and spelling. It also returns the Content-Type.
func consistentHeader(stored []byte, n int) (hdr []byte, contentType string, err error) {
	text := strings.ReplaceAll(string(stored), "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "HTTP/") {
		return nil, "", fmt.Errorf("stored header does not start with an HTTP status line: %.40q", text)
	}
	var b bytes.Buffer
	status := lines[0]
	if !strings.HasPrefix(status, "HTTP/1.") {
		// NB: a response that came over HTTP/2 or 3 is written in
		// HTTP/1.1's message format, which is what application/http
		// means and what WARC readers parse.
		_, rest, _ := strings.Cut(status, " ")
		status = "HTTP/1.1 " + rest
	}
	b.WriteString(status)
	b.WriteString("\r\n")
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)) {
		case "Content-Encoding", "Transfer-Encoding", "Content-Length":
			continue
		case "Content-Type":
			if contentType == "" {
				contentType = strings.TrimSpace(value)
			}
		}
		b.WriteString(l)
		b.WriteString("\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(n) + "\r\n\r\n")
	return b.Bytes(), contentType, nil
}

// mediaType is a Content-Type without parameters, as warcio indexes it.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.TrimSpace(mt)
}
