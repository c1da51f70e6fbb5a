package archive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

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

// maxMemberTail is the most bytes of blank lines a gzip member may hold
// after its record.
const maxMemberTail = 4 << 10

// memberEnd reads the rest of a gzip member after its record: nothing, or
// up to maxMemberTail bytes of blank lines some tools add, and a checksum
// that holds.
//
// NB: it reads what the buffer holds at once, not a byte at a time, and no
// more than maxMemberTail and a buffer: a member whose record is followed
// by a gigabyte of newlines is refused, not decompressed to its end.
func memberEnd(plain *bufio.Reader) error {
	tail := 0
	for {
		buf, err := plain.Peek(1)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return readError("the gzip member", err)
		}
		buf, _ = plain.Peek(plain.Buffered())
		for _, b := range buf {
			if b != '\r' && b != '\n' {
				return errors.New("the gzip member holds more than the record (its Content-Length may be wrong, or the member holds several records)")
			}
		}
		if tail += len(buf); tail > maxMemberTail {
			return fmt.Errorf("the gzip member holds more than %d bytes of blank lines after its record", maxMemberTail)
		}
		plain.Discard(len(buf))
	}
}

// readError says what went wrong reading what.
func readError(what string, err error) error {
	switch {
	case errors.Is(err, errTooLarge):
		return errTooLarge
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%s is cut short (truncated file or gzip member): %w", what, err)
	}
	return fmt.Errorf("reading %s: %w", what, err)
}

// atRecord reports whether the record at the reader's position is
// gzipped, io.EOF at the end of the stream, or an [*Error] when the
// bytes there start no record.
func (r *Reader) atRecord() (gzipped bool, err error) {
	buf, err := r.src.Peek(bufSize)
	switch {
	case len(buf) == 0 && errors.Is(err, io.EOF):
		return false, io.EOF
	case len(buf) == 0 && err != nil:
		return false, r.fail(r.next, readError("the stream", err))
	case len(buf) >= 2 && buf[0] == 0x1f && buf[1] == 0x8b:
		return true, nil
	case bytes.HasPrefix(buf, []byte("WARC/")):
		return false, nil
	}
	// Say how many bytes lie before the next record, if one follows.
	i := bytes.Index(buf, []byte("WARC/"))
	if j := bytes.Index(buf, []byte{0x1f, 0x8b}); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	switch {
	case i >= 0:
		return false, r.fail(r.next, fmt.Errorf("%d bytes that are not a WARC record (the previous record's Content-Length may be wrong)", i))
	case err != nil:
		return false, r.fail(r.next, fmt.Errorf("no WARC record follows: the %d bytes after the last record are not a WARC record", len(buf)))
	}
	return false, r.fail(r.next, fmt.Errorf("%d bytes and more that are not a WARC record", len(buf)))
}

// checkHeader reads the WARC header of the record at the start of plain
// (the record's bytes, decompressed) without consuming it, keeps it for
// targetURI, and refuses a record that declares more than MaxRecord: this
// runs before the WARC library reads (and spools) the block. A header that
// cannot be read here is left to the library to report.
func (r *Reader) checkHeader(plain *bufio.Reader) error {
	r.head = r.head[:0]
	for n := 2048; ; n *= 4 {
		n = min(n, plain.Size())
		buf, err := plain.Peek(n)
		if end := headerEnd(buf); end >= 0 {
			r.head = append(r.head, buf[:end]...)
			break
		}
		if err != nil {
			return nil
		}
		if n == plain.Size() {
			return fmt.Errorf("the record's WARC header does not end within its first %d bytes", n)
		}
	}
	if n, ok := contentLength(r.head); ok && n > MaxRecord {
		return fmt.Errorf("the record declares %d bytes, more than %d (MaxRecord)", n, MaxRecord)
	}
	return nil
}

// headerEnd is the length of the WARC header at the start of buf, up to
// and including the empty line that ends it (CRLF, or LF alone as some
// tools write), or -1 when buf does not hold all of it.
func headerEnd(buf []byte) int {
	end := -1
	if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
		end = i + 4
	}
	if i := bytes.Index(buf, []byte("\n\n")); i >= 0 && (end < 0 || i+2 < end) {
		end = i + 2
	}
	return end
}

// contentLength is the value of the Content-Length field of a WARC
// header, when it has one that is a number.
func contentLength(head []byte) (int64, bool) {
	const field = "content-length:"
	for line := range bytes.Lines(head) {
		if len(line) > len(field) && strings.EqualFold(string(line[:len(field)]), field) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(line[len(field):])), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
