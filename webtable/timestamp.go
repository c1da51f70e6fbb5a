package webtable

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/webtable/webtable/bigtable"
)

// Timestamp is the version of a cell: microseconds since the Unix epoch,
// as in BigTable. What the WebTable writes is always a whole millisecond
// (Cloud Bigtable's rule); reads may name any microsecond. Programs use
// this name and [TimestampOf], so that they speak the WebTable's
// vocabulary, not the store's.
type Timestamp = bigtable.Timestamp

// TimestampOf returns t as a Timestamp, to the microsecond; call its
// TruncateToMilliseconds method for a timestamp to write.
func TimestampOf(t time.Time) Timestamp { return bigtable.Time(t) }

// ErrInUse means another process has the store open for writing (a crawl),
// or, for a writer, open at all. It is the store's own error, under the
// WebTable's name: errors.Is(err, ErrInUse) holds for both.
var ErrInUse = bigtable.ErrInUse

// MaxTimestamp is the latest time a Timestamp of the WebTable holds: the
// last whole millisecond of int64 microseconds but one, so that a read at
// it (which looks up to the next millisecond) does not overflow; about the
// year 294,246.
const MaxTimestamp Timestamp = (math.MaxInt64/1000 - 1) * 1000

// ErrTimeRange reports a time a Timestamp cannot hold: before 1 January
// 1970 UTC (timestamps count microseconds from it and are never negative)
// or after [MaxTimestamp].
var ErrTimeRange = errors.New("webtable: time outside what a timestamp holds (1970-01-01T00:00:00Z and after, to the year 294246)")

// CheckedTimestamp returns t as a Timestamp, or an error wrapping
// [ErrTimeRange] naming t when no Timestamp holds it.
func CheckedTimestamp(t time.Time) (Timestamp, error) {
	if t.Before(time.Unix(0, 0)) || t.After(MaxTimestamp.Time()) {
		return 0, fmt.Errorf("%w: %s", ErrTimeRange, t.UTC().Format(time.RFC3339Nano))
	}
	return TimestampOf(t), nil
}

// checkTimestamp refuses a Timestamp outside 0 to MaxTimestamp.
func checkTimestamp(ts Timestamp) error {
	if ts < 0 || ts > MaxTimestamp {
		return fmt.Errorf("%w: %d microseconds", ErrTimeRange, int64(ts))
	}
	return nil
}
