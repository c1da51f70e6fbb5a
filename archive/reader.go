package archive

import (
	"bufio"
	"bytes"
	"compress/flate"
	stdgzip "compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// Counts says what a [Reader] met, by record type.
type Counts struct {
	// Captures is the number of captures returned (response records, and
	// resource records with an http(s) URI).
	Captures int
	// Revisits counts revisit records: they add no version.
	Revisits int
	// Skipped counts the other records by WARC-Type (request, metadata,
	// warcinfo, "resource" for resources such as metadata://...).
	Skipped map[string]int
}

// Reader reads the captures of one WARC file. It is not safe for
// concurrent use.
type Reader struct {
	name   string
	at     io.ReaderAt // the file, when it is one
	closer io.Closer
	lim    *recordLimit
	// Reused to read record headers from the file (rawHeader).
	peekZ             *stdgzip.Reader
	peekRaw, peekText *bufio.Reader
	r                 *gowarc.WarcFileReader
	maxBody           int64
	next              int64 // where the next record must start
	counts            Counts
	err               error
}

// MaxRecord is the largest record a Reader accepts, in bytes as stored
// (compressed, for a gzipped WARC): a larger one stops the reading with an
// [*Error]. The WARC library spools a record's block to a temporary file
// beyond 1 MiB, so this bounds that file too.
const MaxRecord int64 = 1 << 30

// errTooLarge marks a record beyond MaxRecord.
var errTooLarge = fmt.Errorf("the record is larger than %d bytes (MaxRecord)", MaxRecord)

// Open opens a WARC file (gzipped or plain) for reading; bodies longer
// than maxBody bytes are cut there and marked truncated (0 = no limit).
func Open(name string, maxBody int64) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if err := checkFirstMember(name, f); err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewReader(name, f, maxBody)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// checkFirstMember refuses a gzipped WARC whose first gzip member holds
// more than one record (the whole file compressed as one stream, which
// WARC readers do not expect): the WARC library would read its first
// record and silently skip the rest of the member. The check reads the
// first record only; f is left at its start.
func checkFirstMember(name string, f *os.File) error {
	defer f.Seek(0, io.SeekStart)
	br := bufio.NewReader(f)
	if magic, err := br.Peek(2); err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil // the reader reports it, with its offset
	}
	zr.Multistream(false)
	tp := textproto.NewReader(bufio.NewReader(zr))
	if _, err := tp.ReadLine(); err != nil {
		return nil
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil
	}
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 || n > 64<<20 {
		return nil // NB: not worth decompressing a huge first record twice
	}
	if _, err := io.CopyN(io.Discard, tp.R, n+4); err != nil {
		return nil
	}
	if _, err := tp.R.ReadByte(); err == nil {
		return &Error{File: name, Err: errors.New("the file is one gzip stream holding several records, not one gzip member per record as WARC readers expect: gunzip it and import the plain WARC")}
	}
	return nil
}

// NewReader reads a WARC stream (gzipped or plain) that errors name;
// see [Open]. When src is also an io.ReaderAt (a file), each record's
// declared length is checked before the record is read.
func NewReader(name string, src io.Reader, maxBody int64) (*Reader, error) {
	var magic [5]byte
	n, err := io.ReadFull(src, magic[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("archive: reading %s: %w", name, err)
	}
	if n == 0 {
		return nil, &Error{File: name, Err: fmt.Errorf("%w: the file is empty", ErrNotWARC)}
	}
	if !bytes.HasPrefix(magic[:n], []byte{0x1f, 0x8b}) && !bytes.Equal(magic[:n], []byte("WARC/")[:n]) || n < 2 {
		return nil, &Error{File: name, Err: fmt.Errorf("%w: it starts with %q, not \"WARC/\" or a gzip header", ErrNotWARC, magic[:n])}
	}
	lim := &recordLimit{r: io.MultiReader(bytes.NewReader(magic[:n]), src), max: MaxRecord}
	wr, err := gowarc.NewWarcFileReaderFromStream(lim, 0,
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
		gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore),
		gowarc.WithBlockErrorPolicy(gowarc.ErrIgnore),
	)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", name, err)
	}
	r := &Reader{name: name, lim: lim, r: wr, maxBody: maxBody, counts: Counts{Skipped: map[string]int{}}}
	if at, ok := src.(io.ReaderAt); ok {
		r.at = at
	}
	return r, nil
}

// recordLimit fails reads that go more than max bytes past the start of
// the current record.
type recordLimit struct {
	r     io.Reader
	n     int64 // bytes read so far
	start int64 // where the current record starts
	max   int64
}

func (l *recordLimit) Read(p []byte) (int, error) {
	left := l.start + l.max - l.n
	if left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// Counts returns what was read so far.
func (r *Reader) Counts() Counts { return r.counts }

// Close closes the file (a stream given to NewReader is left open).
func (r *Reader) Close() error {
	r.r.Close()
	if r.closer != nil {
		if err := r.closer.Close(); err != nil {
			return fmt.Errorf("archive: closing %s: %w", r.name, err)
		}
	}
	return nil
}

// Next returns the next capture, io.EOF after the last, or an [*Error]
// for a damaged record (and every call after it).
func (r *Reader) Next() (*Capture, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		c, err := r.next1()
		if err != nil {
			r.err = err
			return nil, err
		}
		if c != nil {
			r.counts.Captures++
			return c, nil
		}
	}
}

// next1 reads one record: a capture, or nil for a record that is skipped.
func (r *Reader) next1() (c *Capture, err error) {
	defer func() {
		// NB: bad input must give an error, whatever the WARC library
		// does with it.
		if p := recover(); p != nil {
			c, err = nil, r.fail(r.next, fmt.Errorf("the WARC library failed on this record: %v", p))
		}
	}()
	r.lim.start = r.next
	if n, ok := r.declaredLength(r.next); ok && n > MaxRecord {
		return nil, r.fail(r.next, fmt.Errorf("the record declares %d bytes, more than %d (MaxRecord)", n, MaxRecord))
	}
	rec, err := r.r.Next()
	if rec.WarcRecord != nil {
		defer rec.WarcRecord.Close()
	}
	if errors.Is(err, io.EOF) && rec.WarcRecord == nil {
		if rec.Offset > r.next {
			return nil, r.fail(r.next, fmt.Errorf("%d bytes after the last record are not a WARC record", rec.Offset-r.next))
		}
		return nil, io.EOF
	}
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, r.fail(r.next, errTooLarge)
		}
		if errors.Is(err, gowarc.ErrNoRecord) {
			return nil, r.fail(r.next, fmt.Errorf("no WARC record follows: %w", err))
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("the record is cut short (truncated file or gzip member): %w", err)
		}
		return nil, r.fail(r.next, err)
	}
	if rec.Offset != r.next {
		return nil, r.fail(r.next, fmt.Errorf("%d bytes that are not a WARC record (the previous record's Content-Length may be wrong)", rec.Offset-r.next))
	}
	for _, v := range rec.Validation {
		var cl *gowarc.ContentLengthError
		if errors.As(v, &cl) {
			return nil, r.fail(rec.Offset, fmt.Errorf("the record's Content-Length says %d bytes but its block has %d", cl.Expected, cl.Actual))
		}
		// NB: a payload digest may be over the chunked or the de-chunked
		// payload depending on the tool that wrote it, so only the block
		// digest, which every tool computes over the same bytes, is held
		// against the record.
		var de *gowarc.DigestError
		if errors.As(v, &de) && strings.HasPrefix(v.Error(), "block:") {
			return nil, r.fail(rec.Offset, fmt.Errorf("the record's block does not match its WARC-Block-Digest (a wrong Content-Length, or damage): %w", v))
		}
	}
	r.next = rec.Offset + rec.Size
	w := rec.WarcRecord
	uri := r.targetURI(w, rec.Offset)
	web := strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://")
	switch w.Type() {
	case gowarc.Response, gowarc.Resource:
		if !web {
			// Heritrix's dns: responses, wget's metadata:// log...
			r.counts.Skipped[w.Type().String()+" (not http)"]++
			return nil, nil
		}
	case gowarc.Revisit:
		r.counts.Revisits++
		return nil, nil
	default:
		r.counts.Skipped[w.Type().String()]++
		return nil, nil
	}
	c, err = r.capture(w, uri)
	if err != nil {
		return nil, r.fail(rec.Offset, err)
	}
	return c, nil
}

// fail is err at offset of this reader's file.
func (r *Reader) fail(offset int64, err error) error {
	return &Error{File: r.name, Offset: offset, Err: err}
}

// targetURI is the record's WARC-Target-URI without the angle brackets
// that WARC/1.0's examples, and so wget, put around it.
func (r *Reader) targetURI(w gowarc.WarcRecord, offset int64) string {
	u := w.WarcHeader().Get(gowarc.WarcTargetURI)
	if u == "" {
		// NB: the WARC library validates the field as a URL and, finding
		// "<http://...>" is none, empties it (keeping a warning): read
		// the record's header again from the file.
		u = r.rawField(offset, gowarc.WarcTargetURI)
	}
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(u), "<"), ">")
}

// rawField reads a field of the WARC header of the record at offset
// straight from the file ("" when it cannot).
func (r *Reader) rawField(offset int64, name string) string {
	return r.rawHeader(offset).Get(name)
}

// declaredLength is the Content-Length the record at offset of a plain
// WARC file declares, read before the WARC library reads the record (ok
// is false when the reader has no file, the record is gzipped, or the
// header does not say).
//
// NB: not for gzip members: a decompressor decodes a whole block (often
// the whole record) to give the first bytes, which made reading a third
// slower; there MaxRecord is enforced as the record is read.
func (r *Reader) declaredLength(offset int64) (n int64, ok bool) {
	if r.at == nil {
		return 0, false
	}
	var magic [2]byte
	if _, err := r.at.ReadAt(magic[:], offset); err != nil || magic[0] == 0x1f && magic[1] == 0x8b {
		return 0, false
	}
	n, err := strconv.ParseInt(r.rawHeader(offset).Get("Content-Length"), 10, 64)
	return n, err == nil
}

// rawHeader reads the WARC header of the record at offset from the file
// (nil when it cannot).
func (r *Reader) rawHeader(offset int64) textproto.MIMEHeader {
	if r.at == nil {
		return nil
	}
	// NB: the readers are reused: this runs for every record.
	if r.peekRaw == nil {
		r.peekRaw, r.peekText = bufio.NewReaderSize(nil, 2048), bufio.NewReaderSize(nil, 2048)
	}
	br := r.peekRaw
	br.Reset(io.NewSectionReader(r.at, offset, 1<<30))
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		var err error
		if r.peekZ == nil {
			r.peekZ, err = stdgzip.NewReader(br)
		} else {
			err = r.peekZ.Reset(br)
		}
		if err != nil {
			return nil
		}
		r.peekZ.Multistream(false)
		src = r.peekZ
	}
	r.peekText.Reset(src)
	tp := textproto.NewReader(r.peekText)
	if _, err := tp.ReadLine(); err != nil {
		return nil
	}
	h, _ := tp.ReadMIMEHeader()
	return h
}

// capture turns a response or resource record into a Capture.
func (r *Reader) capture(w gowarc.WarcRecord, uri string) (*Capture, error) {
	c := &Capture{URL: uri}
	if c.URL == "" {
		return nil, fmt.Errorf("%s record without WARC-Target-URI", w.Type())
	}
	t, err := time.Parse(time.RFC3339Nano, w.WarcHeader().Get(gowarc.WarcDate))
	if err != nil {
		return nil, fmt.Errorf("%s record of %s: WARC-Date: %w", w.Type(), c.URL, err)
	}
	c.Time = t.UTC()
	var payload io.Reader
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

// readMax reads r to its end, keeping at most max bytes (0 = all);
// truncated says there were more.
func readMax(r io.Reader, max int64) (body []byte, truncated bool, err error) {
	if max <= 0 {
		body, err = io.ReadAll(r)
		return body, false, err
	}
	body, err = io.ReadAll(io.LimitReader(r, max))
	if err != nil {
		return nil, false, err
	}
	n, err := io.Copy(io.Discard, r)
	return body, n > 0, err
}
