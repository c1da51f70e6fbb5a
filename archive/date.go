package archive

import (
	"errors"
	"fmt"
	"time"
)

// The dates a capture may have: a WebTable timestamp counts microseconds
// from 1970 and is never negative, and RFC 3339 ends with the year 9999.
var (
	minDate = time.Unix(0, 0).UTC()
	maxDate = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// errUndated marks a capture record whose WARC-Date cannot be read or lies
// outside the dates a timestamp holds: the record is skipped (see
// Reader.OnSkip), the reading goes on.
var errUndated = errors.New("the record cannot be dated")

// parseDate reads a WARC-Date (RFC 3339, as WARC/1.0 and 1.1 write it, to
// any fraction of a second) and checks that a timestamp holds it: from
// 1970-01-01T00:00:00Z on. The time is in UTC.
func parseDate(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: WARC-Date %q is not an RFC 3339 date", errUndated, s)
	}
	t = t.UTC()
	if t.Before(minDate) || t.After(maxDate) {
		return time.Time{}, fmt.Errorf("%w: WARC-Date %s is before 1970-01-01T00:00:00Z, the first time a timestamp holds", errUndated, s)
	}
	return t, nil
}
