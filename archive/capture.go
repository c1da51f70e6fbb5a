package archive

import (
	"errors"
	"fmt"
	"time"
)

// Capture is one HTTP response of a web archive.
type Capture struct {
	// URL is the URL fetched (WARC-Target-URI).
	URL string
	// Time is when it was fetched (WARC-Date). Writing keeps milliseconds.
	Time time.Time
	// Status is the HTTP status; 0 for a resource record.
	Status int
	// Header is the HTTP status line and headers, ending with the empty
	// line, as stored (for writing) or as in the record (read); nil for a
	// resource record.
	Header []byte
	// ContentType is the HTTP Content-Type header (read), or for a
	// resource record its WARC Content-Type.
	ContentType string
	// MIME is the media type written for a resource record (written only).
	MIME string
	// Body is the payload without chunking or Content-Encoding.
	Body []byte
	// Truncated says Body was cut at a size limit.
	Truncated bool
	// Revisit is set for a revisit record read (Reader.Revisits): its
	// payload is that of the record of RefersTo at RefersDate, and Body
	// is nil.
	Revisit    bool
	RefersTo   string
	RefersDate time.Time
	// Rendered, when not nil, is the page as a browser built it (UTF-8
	// HTML): written after the response (or the revisit record that
	// stands for it) as a conversion record that refers to it, and read
	// back from a conversion record that follows the record it refers to.
	Rendered []byte

	// recordID is the WARC-Record-ID of the record read, and for a
	// conversion record read, refersTo its WARC-Refers-To.
	recordID, refersTo string
	// conversion marks a conversion record read: Body is its block.
	conversion bool
}

// Error is a damaged or unreadable WARC file: File and the byte Offset of
// the record where reading stopped (in the file as stored: compressed
// bytes for a gzipped WARC).
type Error struct {
	File   string
	Offset int64
	Err    error
}

// Error says "archive: FILE at offset N: what".
func (e *Error) Error() string {
	return fmt.Sprintf("archive: %s at offset %d: %v", e.File, e.Offset, e.Err)
}

// Unwrap returns what went wrong.
func (e *Error) Unwrap() error { return e.Err }

// ErrNotWARC means a file starts with neither "WARC/" nor a gzip header.
var ErrNotWARC = errors.New("archive: not a WARC file")
