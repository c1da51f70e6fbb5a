package webtable

import (
	"fmt"
	"strconv"
	"time"

	"github.com/webtable/webtable/bigtable"
)

// State is a URL's place in the crawl frontier, stored in fetch:state.
type State string

// Frontier states. A URL with no fetch:state is unknown to the frontier.
const (
	StateUnknown State = ""
	StateQueued  State = "queued"
	StateDone    State = "done"
	StateFailed  State = "failed"
)

// The qualifiers of the fetch family.
const (
	colURL          = "url"
	colStatus       = "status"
	colTime         = "time"
	colLength       = "length"
	colCharset      = "charset"
	colETag         = "etag"
	colLastModified = "last_modified"
	colRedirect     = "redirect"
	colError        = "error"
	colTruncated    = "truncated"
	colDepth        = "depth"
	colState        = "state"
	colLinks        = "links"
	colLinksKept    = "links_kept"
)

// Fetch is the record of the latest fetch of a URL and its frontier state:
// the fetch family of its row.
type Fetch struct {
	URL          string    // full URL with scheme (the final one after same-row redirects)
	Status       int       // HTTP status; 0 when no response came
	Time         time.Time // when the fetch was made (whole milliseconds, UTC)
	Length       int64     // body bytes received (after any cut at the size limit)
	Charset      string    // charset named by the response, if any
	ETag         string    // ETag response header
	LastModified string    // Last-Modified response header
	Redirect     string    // target URL when the page redirected to another row
	Error        string    // why the fetch failed; "" on success
	Truncated    bool      // the body was cut at the size limit
	Depth        int       // link hops from a seed
	Links        int       // distinct http(s) targets the page linked to
	LinksKept    int       // how many of them were stored as anchors (at most the crawl's --max-links)
	State        State     // frontier state

	// SHA256 is the contents:sha256 of the newest stored version of the
	// page ("" when none) and MIME its mime:type. They are not part of the
	// fetch family; LastFetch fills them in for conditional recrawls.
	SHA256 string
	MIME   string
}

// Fetched reports whether the record describes a fetch that was made (as
// opposed to a frontier entry that was only queued).
func (f Fetch) Fetched() bool { return !f.Time.IsZero() }

// timestamp is t in whole milliseconds, as bigtable microseconds.
func timestamp(t time.Time) bigtable.Timestamp {
	return bigtable.Time(t).TruncateToMilliseconds()
}

// formatTime is how fetch:time is stored: RFC 3339 with milliseconds, UTC.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// fetchRecordCells is how many cells setFetchRecord writes, at most.
const fetchRecordCells = 13

// setFetchRecord adds the fetch record of f (without its state) to m:
// every qualifier every time (but see fresh), so that a fetch never leaves
// facts of an older one behind (an old error beside a new success). The
// family keeps one version: the record replaces the last fetch's (written
// earlier by the same crawler, so at an older time) and any frontier entry
// (at FrontierTime, older than any fetch).
//
// fresh says the row was queued as new and holds no fetch record (see
// Fetched.NewRow): its only fetch cell is then the queued state (at
// FrontierTime, replaced with the mark, see Save), so the record is
// written without pruning (bigtable.Mutation.SetUnpruned), and without
// its empty fields (charset, etag, last_modified, redirect and error when
// "", truncated when false), which read as empty when absent (parseFetch):
// there is no older fact for them to replace. On the crawl benchmark's
// generated site (a charset, no validators) that is 5 of a page's 27
// writes.
func setFetchRecord(m *bigtable.Mutation, f Fetch, ts bigtable.Timestamp, fresh bool) {
	// NB: the values are carved out of one buffer (the mutation keeps
	// them), not allocated one by one: 13 cells per page fetched.
	buf := make([]byte, 0, len(f.URL)+len(f.Charset)+len(f.ETag)+len(f.LastModified)+len(f.Redirect)+len(f.Error)+96)
	put := func(col string, v []byte) {
		if fresh {
			m.SetUnpruned(FamilyFetch, col, ts, v)
		} else {
			m.Set(FamilyFetch, col, ts, v)
		}
	}
	str := func(col, v string) {
		if fresh && v == "" {
			return
		}
		start := len(buf)
		buf = append(buf, v...)
		put(col, buf[start:len(buf):len(buf)])
	}
	num := func(col string, v int64) {
		start := len(buf)
		buf = strconv.AppendInt(buf, v, 10)
		put(col, buf[start:len(buf):len(buf)])
	}
	str(colURL, f.URL)
	num(colStatus, int64(f.Status))
	str(colTime, formatTime(f.Time))
	num(colLength, f.Length)
	str(colCharset, f.Charset)
	str(colETag, f.ETag)
	str(colLastModified, f.LastModified)
	str(colRedirect, f.Redirect)
	str(colError, f.Error)
	if f.Truncated || !fresh {
		str(colTruncated, strconv.FormatBool(f.Truncated))
	}
	num(colDepth, int64(f.Depth))
	num(colLinks, int64(f.Links))
	num(colLinksKept, int64(f.LinksKept))
}

// parseFetch reads the fetch family of a row. Unparseable numbers are
// reported with the row and column, never silently read as zero.
func parseFetch(row bigtable.Row) (Fetch, error) {
	var f Fetch
	for _, it := range row[FamilyFetch] {
		v := string(it.Value)
		var err error
		switch qualifier(it.Column) {
		case colURL:
			f.URL = v
		case colStatus:
			f.Status, err = strconv.Atoi(v)
		case colTime:
			if v != "" {
				f.Time, err = time.Parse(time.RFC3339Nano, v)
			}
		case colLength:
			f.Length, err = strconv.ParseInt(v, 10, 64)
		case colCharset:
			f.Charset = v
		case colETag:
			f.ETag = v
		case colLastModified:
			f.LastModified = v
		case colRedirect:
			f.Redirect = v
		case colError:
			f.Error = v
		case colTruncated:
			f.Truncated, err = strconv.ParseBool(v)
		case colDepth:
			f.Depth, err = strconv.Atoi(v)
		case colLinks:
			f.Links, err = strconv.Atoi(v)
		case colLinksKept:
			f.LinksKept, err = strconv.Atoi(v)
		case colState:
			f.State = State(v)
		}
		if err != nil {
			return f, fmt.Errorf("webtable: row %q column %s holds %q: %w", row.Key(), it.Column, v, err)
		}
	}
	return f, nil
}

// qualifier is the part of a "family:qualifier" column name after the colon.
func qualifier(column string) string {
	for i := 0; i < len(column); i++ {
		if column[i] == ':' {
			return column[i+1:]
		}
	}
	return column
}
