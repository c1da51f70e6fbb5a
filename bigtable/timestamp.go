package bigtable

import "time"

// Timestamp is a cell version: microseconds since 1 January 1970 UTC, as in
// Cloud Bigtable. Valid cell timestamps are 0 and above; ServerTime is the
// only negative value a mutation may use.
type Timestamp int64

// ServerTime is a Timestamp that may be passed to (*Mutation).Set. It makes
// the store assign the current time when the mutation is applied; every
// ServerTime cell of one Apply gets the same timestamp.
const ServerTime Timestamp = -1

// Time converts a time.Time into a Timestamp, dropping sub-microsecond digits.
func Time(t time.Time) Timestamp { return Timestamp(t.UnixMicro()) }

// Now returns the current time as a Timestamp.
func Now() Timestamp { return Time(time.Now()) }

// Time converts a Timestamp into a time.Time in the local time zone.
func (ts Timestamp) Time() time.Time { return time.UnixMicro(int64(ts)) }

// TruncateToMilliseconds truncates a Timestamp to millisecond granularity,
// the granularity Cloud Bigtable stores. ServerTime is returned unchanged.
// This store keeps microseconds; use this when data must round-trip through
// Cloud Bigtable unchanged.
func (ts Timestamp) TruncateToMilliseconds() Timestamp {
	if ts == ServerTime {
		return ts
	}
	return ts - ts%1000
}

// Microseconds reports that the table keeps each timestamp to the
// microsecond, so that cells one microsecond apart are two versions.
// Cloud Bigtable truncates timestamps to milliseconds; callers that need
// more ask for this method (webtable's import does).
func (t *Table) Microseconds() bool { return true }
