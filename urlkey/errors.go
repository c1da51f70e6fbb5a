package urlkey

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error returned by this package is an [*Error] that
// wraps one of these, so callers test the condition with [errors.Is] and
// recover the input with [errors.As].
var (
	// ErrScheme reports a URL that is not absolute or whose scheme is not
	// http or https (mailto:, javascript:, file:, data:, ftp:, a relative
	// reference).
	ErrScheme = errors.New("urlkey: scheme is not http or https")

	// ErrNoHost reports a URL without a host (http:///path, http://,
	// http:www.cnn.com).
	ErrNoHost = errors.New("urlkey: missing host")

	// ErrBadHost reports a host that browsers would refuse: invalid
	// characters, an empty label (a..b.com), an invalid IDN or punycode
	// label, a malformed IP literal or an IPv6 zone.
	ErrBadHost = errors.New("urlkey: invalid host")

	// ErrHostTooLong reports a host longer than [MaxHostLen] bytes in its
	// ASCII (punycode) form.
	ErrHostTooLong = errors.New("urlkey: host longer than 253 bytes")

	// ErrBadPort reports a port that is not a decimal number up to 65535.
	ErrBadPort = errors.New("urlkey: invalid port")

	// ErrKeyTooLong reports a row key longer than [MaxKeyLen] bytes.
	ErrKeyTooLong = errors.New("urlkey: key longer than " + strconv.Itoa(MaxKeyLen) + " bytes")

	// ErrBadKey reports a string given to [URL] that is not a row key
	// produced by [Key], or a key that cannot have come from a URL with the
	// given scheme.
	ErrBadKey = errors.New("urlkey: not a row key")
)

// Error records a failed operation and the input that caused it, in the
// manner of [net/url.Error].
type Error struct {
	// Op is the operation: "key", "canonical", "url", "host", "hostkey" or
	// "prefix".
	Op string
	// URL is the input as given: a URL, a host or a row key.
	URL string
	// Err is the cause; it wraps one of the package's sentinel errors.
	Err error
}

// Error returns `urlkey: <op> "<input>": <cause>`.
func (e *Error) Error() string {
	return "urlkey: " + e.Op + " " + strconv.Quote(e.URL) + ": " +
		strings.TrimPrefix(e.Err.Error(), "urlkey: ")
}

// Unwrap returns the cause, so errors.Is(err, ErrBadHost) works.
func (e *Error) Unwrap() error { return e.Err }

// detail is a sentinel with a detail: the sentinel's message, ": ", the
// detail. It unwraps to the sentinel. It costs one allocation, and only on
// the error path.
type detail struct {
	err error
	msg string
}

func (d *detail) Error() string { return d.err.Error() + ": " + d.msg }
func (d *detail) Unwrap() error { return d.err }

// withDetail wraps sentinel err with a short explanation.
func withDetail(err error, msg string) error { return &detail{err, msg} }
