package webtable

import (
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
