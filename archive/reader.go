package archive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// Counts says what a [Reader] met, by record type.
type Counts struct {
	// Captures is the number of captures returned (response records, and
	// resource records with an http(s) URI).
	Captures int
	// Revisits counts revisit records: they add no version unless the
	// Reader returns them (Reader.Revisits), when Captures counts them too.
	Revisits int
	// Conversions counts the conversion records read back as the
	// Rendered of the capture they follow and refer to.
	Conversions int
	// Skipped counts the other records by WARC-Type (request, metadata,
	// warcinfo, "resource" for resources such as metadata://...), and
	// under SkippedUndated the captures that cannot be dated.
	Skipped map[string]int
}

// SkippedUndated is the key of [Counts.Skipped] for response and resource
// records whose WARC-Date is not a date or lies before 1970: they are
// skipped, and the reading goes on.
const SkippedUndated = "capture that cannot be dated"

// Reader reads the captures of one WARC file. It is not safe for
// concurrent use.
type Reader struct {
	// OnSkip, when set, is called for each capture record skipped because
	// it cannot be dated, with an [*Error] naming the file, the record's
	// offset and its WARC-Date, so that the importer can say so in one
	// line. Set it before the first Next.
	OnSkip func(*Error)
	// Revisits, when set, makes Next return the revisit records of
	// profile identical-payload-digest that name the record they refer
	// to (WARC-Refers-To-Target-URI and -Date) as captures with Revisit
	// set and no Body; the others are counted and skipped, as all
	// revisits are without it. Set it before the first Next.
	Revisits bool

	name   string
	closer io.Closer
	lim    *recordLimit
	// src is the stream as stored (gzipped or plain); pos counts in it.
	src *bufio.Reader
	// gz and member decompress one gzip member at a time (reused): the
	// WARC library is handed the plain record, after its header was read
	// here (see checkHeader).
	gz      *gzip.Reader
	member  *bufio.Reader
	un      gowarc.Unmarshaler
	head    []byte // the WARC header of the current record, as stored
	maxBody int64
	next    int64 // where the next record must start
	// ahead is a capture or conversion read but not returned yet: the
	// record after a capture is read to find its conversion.
	ahead  *Capture
	counts Counts
	err    error
}

// MaxRecord is the largest record a Reader accepts: a record whose WARC
// header declares a longer block (Content-Length, uncompressed) is refused
// with an [*Error] before any of its block is read, gzipped or not. The
// WARC library spools a record's block to a temporary file beyond 1 MiB,
// so this bounds that file too.
const MaxRecord int64 = 1 << 30

// bufSize is the size of the Reader's buffers, and so the longest WARC
// header it reads.
const bufSize = 64 << 10

// errTooLarge marks a record that reads on beyond MaxRecord without
// declaring it (a backstop: a record declaring more is refused up front).
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
// WARC readers do not expect), with an error that says what to do about
// it. The check reads the first record only; f is left at its start.
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
// see [Open].
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
	// NB: the limit is on bytes as stored; a gzip member can be a little
	// longer than the record it holds.
	lim := &recordLimit{r: io.MultiReader(bytes.NewReader(magic[:n]), src), max: MaxRecord + MaxRecord/64 + bufSize}
	un := gowarc.NewUnmarshaler(
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
		gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore),
		gowarc.WithBlockErrorPolicy(gowarc.ErrIgnore),
	)
	return &Reader{name: name, lim: lim, src: bufio.NewReaderSize(lim, bufSize), un: un, maxBody: maxBody, counts: Counts{Skipped: map[string]int{}}}, nil
}

// Counts returns what was read so far.
func (r *Reader) Counts() Counts { return r.counts }

// Close closes the file (a stream given to NewReader is left open).
func (r *Reader) Close() error {
	if r.closer != nil {
		if err := r.closer.Close(); err != nil {
			return fmt.Errorf("archive: closing %s: %w", r.name, err)
		}
	}
	return nil
}

// Next returns the next capture, io.EOF after the last, or an [*Error]
// for a damaged record (and every call after it). A conversion record
// that follows the capture it refers to comes back as that capture's
// Rendered (see conversion.go); the reading of the record after a capture
// is done before the capture is returned, and its error, if any, is
// returned by the next call.
func (r *Reader) Next() (*Capture, error) {
	c, err := r.nextRecord()
	if err != nil {
		return nil, err
	}
	r.counts.Captures++
	r.attachConversion(c)
	return c, nil
}

// nextRecord returns the next record that is a capture or a conversion:
// the one read ahead by attachConversion, if any, else the next one
// read. An error is kept and returned by every call after it.
func (r *Reader) nextRecord() (*Capture, error) {
	for {
		if c := r.ahead; c != nil {
			r.ahead = nil
			if !c.conversion {
				return c, nil
			}
			r.counts.Skipped[gowarc.Conversion.String()+" (not after the record it refers to)"]++
			continue
		}
		if r.err != nil {
			return nil, r.err
		}
		c, err := r.next1()
		if err != nil {
			r.err = err
			return nil, err
		}
		if c != nil {
			r.ahead = c
		}
	}
}

// pos is the offset in the stream of the next byte to read.
func (r *Reader) pos() int64 { return r.lim.n - int64(r.src.Buffered()) }

// next1 reads one record: a capture, or nil for a record that is skipped.
func (r *Reader) next1() (c *Capture, err error) {
	defer func() {
		// NB: bad input must give an error, whatever the WARC library
		// does with it.
		if p := recover(); p != nil {
			c, err = nil, r.fail(r.next, fmt.Errorf("the WARC library failed on this record: %v", p))
		}
	}()
	start := r.next
	r.lim.start = start
	plain, gzipped, err := r.openRecord(start)
	if err != nil {
		return nil, err
	}
	w, skipped, validation, err := r.un.Unmarshal(plain)
	if w != nil {
		defer w.Close()
	}
	if err != nil {
		return nil, r.fail(start, readError("the record", err))
	}
	if err := checkRecord(plain, gzipped, skipped, validation); err != nil {
		return nil, r.fail(start, err)
	}
	r.next = r.pos()
	return r.record(w, start)
}

// openRecord finds the record that starts at start, the reader's
// position, and returns its bytes as plain (decompressed when the record
// is a gzip member, reported by gzipped) after checkHeader passed them.
// An error is an [*Error] at start, or io.EOF at the end of the stream.
func (r *Reader) openRecord(start int64) (plain *bufio.Reader, gzipped bool, err error) {
	gzipped, err = r.atRecord()
	if err != nil {
		return nil, false, err
	}
	plain = r.src
	if gzipped {
		if r.gz == nil {
			r.gz, err = gzip.NewReader(r.src)
		} else {
			err = r.gz.Reset(r.src)
		}
		if err != nil {
			return nil, false, r.fail(start, readError("the gzip member's header", err))
		}
		r.gz.Multistream(false)
		if r.member == nil {
			r.member = bufio.NewReaderSize(r.gz, bufSize)
		} else {
			r.member.Reset(r.gz)
		}
		plain = r.member
	}
	if err := r.checkHeader(plain); err != nil {
		return nil, false, r.fail(start, err)
	}
	return plain, gzipped, nil
}

// checkRecord refuses a record the WARC library read from plain with
// skipped bytes before it, a Content-Length or block digest its
// validation found wrong, or (gzipped) more than blank lines after it in
// its gzip member.
func checkRecord(plain *bufio.Reader, gzipped bool, skipped int64, validation []error) error {
	if skipped != 0 {
		return fmt.Errorf("%d bytes that are not a WARC record", skipped)
	}
	for _, v := range validation {
		var cl *gowarc.ContentLengthError
		if errors.As(v, &cl) {
			return fmt.Errorf("the record's Content-Length says %d bytes but its block has %d", cl.Expected, cl.Actual)
		}
		// NB: a payload digest may be over the chunked or the de-chunked
		// payload depending on the tool that wrote it, so only the block
		// digest, which every tool computes over the same bytes, is held
		// against the record.
		var de *gowarc.DigestError
		if errors.As(v, &de) && strings.HasPrefix(v.Error(), "block:") {
			return fmt.Errorf("the record's block does not match its WARC-Block-Digest (a wrong Content-Length, or damage): %w", v)
		}
	}
	if gzipped {
		return memberEnd(plain)
	}
	return nil
}

// record turns a record read whole, which started at offset start, into
// a capture, or nil when it is counted and skipped: a response or
// resource, a revisit (when r.Revisits) or a conversion of an http(s)
// URI.
func (r *Reader) record(w gowarc.WarcRecord, start int64) (*Capture, error) {
	uri := r.targetURI(w)
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
		if !r.Revisits || !web {
			return nil, nil
		}
		c, err := r.revisit(w, uri, start)
		if c != nil {
			c.recordID = w.WarcHeader().Get(gowarc.WarcRecordID)
		}
		return c, err
	case gowarc.Conversion:
		if !web {
			r.counts.Skipped[w.Type().String()+" (not http)"]++
			return nil, nil
		}
		return r.conversion(w, uri, start)
	default:
		r.counts.Skipped[w.Type().String()]++
		return nil, nil
	}
	return r.datedCapture(w, uri, start)
}

// datedCapture turns a response or resource record of uri, which started
// at offset start, into a capture dated by its WARC-Date; a record that
// cannot be dated is counted under SkippedUndated, told to OnSkip and
// skipped (nil).
func (r *Reader) datedCapture(w gowarc.WarcRecord, uri string, start int64) (*Capture, error) {
	date, err := parseDate(r.field(w, gowarc.WarcDate))
	if err != nil {
		r.counts.Skipped[SkippedUndated]++
		if r.OnSkip != nil {
			r.OnSkip(&Error{File: r.name, Offset: start, Err: fmt.Errorf("%s record of %s: %w", w.Type(), uri, err)})
		}
		return nil, nil
	}
	c, err := r.capture(w, uri, date)
	if err != nil {
		return nil, r.fail(start, err)
	}
	c.recordID = w.WarcHeader().Get(gowarc.WarcRecordID)
	return c, nil
}

// fail is err at offset of this reader's file.
func (r *Reader) fail(offset int64, err error) error {
	return &Error{File: r.name, Offset: offset, Err: err}
}

// targetURI is the record's WARC-Target-URI without the angle brackets
// that WARC/1.0's examples, and so wget, put around it.
func (r *Reader) targetURI(w gowarc.WarcRecord) string {
	// NB: the WARC library validates the field as a URL and, finding
	// "<http://...>" is none, empties it (keeping a warning).
	u := r.field(w, gowarc.WarcTargetURI)
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(u), "<"), ">")
}

// field is a field of the record's WARC header, read from the header as
// stored when the WARC library emptied it (it empties fields it finds
// invalid, such as a WARC-Date that is no date).
func (r *Reader) field(w gowarc.WarcRecord, name string) string {
	if v := w.WarcHeader().Get(name); v != "" {
		return v
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(r.head)))
	if _, err := tp.ReadLine(); err != nil {
		return ""
	}
	h, _ := tp.ReadMIMEHeader()
	return h.Get(name)
}
