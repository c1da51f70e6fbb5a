package webtable

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/urlkey"
)

// The contents qualifiers kept beside each contents:html version for web
// archives (WARC): what a capture needs besides its body.
const (
	colHTML    = "html"
	colSHA256  = "sha256"
	colHeaders = "headers" // the status line and response headers as received
	colFetched = "url"     // the URL fetched, scheme included
	// colMeta holds a version's status, URL, truncation and headers in
	// one cell (see encodeMeta; before FormatContentsMeta, each its own).
	colMeta = "meta"
	// colSeen marks an imported capture equal to the version before it,
	// kept at its time in place of a version: its sha256 and its own
	// status, URL and headers (see [WebTable.Import] and encodeSeen).
	colSeen = "seen"
	// colStatus and colTruncated ("true" when the body was cut at the
	// size limit; absent otherwise) name the status and truncation among
	// the cells contents:meta packs (see cells), as the fetch record's
	// JSON fields do.
	colStatus    = "status"
	colTruncated = "truncated"
)

// Capture is one stored contents:html version with what a web archive
// (WARC) record of it needs, or one capture read from such a record to be
// stored (see [WebTable.Import]).
type Capture struct {
	// Row is the row key (set by Captures; Import derives it from URL).
	Row string
	// URL is the URL fetched, scheme included (contents:meta; for versions
	// stored before it was kept, the row's latest fetch record's URL).
	URL string
	// Time is the fetch time, whole milliseconds, UTC.
	Time time.Time
	// Status is the HTTP status (contents:meta).
	Status int
	// Header is the status line and the response headers as received, in
	// HTTP/1.1 wire form ending with an empty line; nil for versions
	// stored before headers were kept.
	Header []byte
	// MIME is the media type (mime:type; only its newest version is kept,
	// so older captures show the newest).
	MIME string
	// Body is the stored contents:html: the body after the transfer's
	// chunking and Content-Encoding were removed. For Import, nil keeps no
	// version (a page that is not HTML, or failed): only the fetch record
	// and mime:type are written.
	Body []byte
	// Truncated says the body was cut at the crawl's size limit.
	Truncated bool
	// Rendered is the contents:rendered stored at the same time (the page
	// as a browser built it, crawl --render); nil when none. Import stores
	// it beside the body (a WARC conversion record read back).
	Rendered []byte
	// Anchors are the links of the page (Import only).
	Anchors []Anchor
	// Charset is the charset the page was decoded with (Import only; fetch:charset).
	Charset string
	// Error, when not "", says why the capture counts as a failed fetch
	// (Import only: the fetch record's error, and fetch:state failed).
	Error string
}

// Selection says which contents:html versions [WebTable.Captures] yields.
type Selection struct {
	// All yields every stored version, oldest first within a row.
	All bool
	// At yields the version current at that time (the newest at or before
	// it); 0 with All false means the newest.
	At Timestamp
}

// Captures calls fn with the chosen contents:html versions of every row in
// ranges (all rows when ranges is empty), in row-key order, until fn
// returns an error, which Captures returns. One row is in memory at a time.
func (w *WebTable) Captures(ctx context.Context, ranges []urlkey.Range, sel Selection, fn func(*Capture) error) error {
	if err := checkTimestamp(sel.At); err != nil {
		return err
	}
	contents := bigtable.FamilyFilter(FamilyContents)
	if sel.At > 0 && !sel.All {
		end := sel.At - sel.At%1000 + 1000 // see Query.filter
		contents = bigtable.ChainFilters(contents, bigtable.TimestampRangeFilterMicros(0, end))
	}
	f := bigtable.InterleaveFilters(
		contents,
		fetchRecordFilter(false),
		bigtable.ChainFilters(column(FamilyMIME, "type"), bigtable.LatestNFilter(1)),
	)
	return w.scanRows(ctx, rowSet(ranges), f, "reading captures", func(r bigtable.Row) error {
		caps, err := rowCaptures(r)
		if err != nil {
			return err
		}
		if !sel.All && len(caps) > 1 {
			caps = caps[len(caps)-1:]
		}
		for _, c := range caps {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// rowCaptures groups the contents cells of a row by timestamp into
// captures, oldest first; timestamps without contents:html are left out.
func rowCaptures(r bigtable.Row) ([]*Capture, error) {
	byTS := map[bigtable.Timestamp]*Capture{}
	var caps []*Capture
	var times []bigtable.Timestamp // of caps
	for _, it := range r[FamilyContents] {
		if qualifier(it.Column) == colHTML {
			// NB: the millisecond: captures of one instant have
			// versions at microseconds of it (see Import).
			c := &Capture{Row: r.Key(), Time: it.Timestamp.TruncateToMilliseconds().Time().UTC(), Body: it.Value}
			byTS[it.Timestamp] = c
			caps = append(caps, c)
			times = append(times, it.Timestamp)
		}
	}
	var mime string
	if items := r[FamilyMIME]; len(items) > 0 {
		mime = string(items[0].Value)
	}
	for _, it := range r[FamilyContents] {
		c := byTS[it.Timestamp]
		if c == nil {
			continue
		}
		switch qualifier(it.Column) {
		case ColRendered:
			c.Rendered = it.Value
		case colMeta:
			mc, err := decodeMeta(it.Value)
			if err != nil {
				return nil, fmt.Errorf("webtable: row %q contents:meta holds %q: %w", r.Key(), it.Value, err)
			}
			c.Status, _ = strconv.Atoi(string(mc.get(colStatus)))
			c.URL = string(mc.get(colFetched))
			c.Truncated = mc.get(colTruncated) != nil
			if h := mc.get(colHeaders); h != nil {
				c.Header = h
			}
		}
	}
	var fetchURL *string // the row's latest fetch URL, read when needed
	for _, c := range caps {
		c.MIME = mime
		if c.URL == "" && fetchURL == nil {
			f, err := parseFetch(r)
			if err != nil {
				return nil, err
			}
			fetchURL = &f.URL
		}
		if c.URL == "" {
			c.URL = *fetchURL
		}
		if c.URL == "" {
			return nil, fmt.Errorf("webtable: row %q has contents:html at %s but no URL in contents:meta or its fetch record", r.Key(), formatTime(c.Time))
		}
	}
	order := make([]int, len(caps))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(times[a], times[b]) })
	sorted := make([]*Capture, len(caps))
	for i, k := range order {
		sorted[i] = caps[k]
	}
	return sorted, nil
}
