package webtable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// The qualifiers of the fetch family. A fetch is one cell, fetch:record
// (see encodeFetchRecord), beside the frontier state, fetch:state.
const (
	colRecord = "record"
	colState  = "state"
)

// FetchRecordColumn is the column that holds a page's last fetch as one
// JSON object (see [Fetch] for its fields), which readers may show field
// by field.
const FetchRecordColumn = FamilyFetch + ":" + colRecord

// timestamp is t in whole milliseconds, as bigtable microseconds.
func timestamp(t time.Time) bigtable.Timestamp {
	return bigtable.Time(t).TruncateToMilliseconds()
}

// formatTime is how a fetch record's time is stored: RFC 3339 with milliseconds, UTC.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// fetchRecordCells is how many cells setFetchRecord writes.
const fetchRecordCells = 1

// rowForm is what a write knows of the fetch record a row holds.
type rowForm int

const (
	// rowFresh: the row was queued as new and holds no fetch record (see
	// Fetched.NewRow): nothing to prune or delete.
	rowFresh rowForm = iota
	// rowCurrent: the row may hold a record.
	rowCurrent
)

// setFetchRecord adds the fetch record of f (without its state) to m as
// one cell, fetch:record (see encodeFetchRecord): a fetch never leaves
// facts of an older one behind (an old error beside a new success). The
// family keeps one version: the record replaces the last fetch's (written
// earlier by the same crawler, so at an older time).
//
// In a fresh row (rowFresh) the only fetch cell is the queued state (at
// FrontierTime, replaced with the mark, see Save), so the record is
// written without pruning (bigtable.Mutation.SetOnlyVersion).
func setFetchRecord(m *bigtable.Mutation, f crawlstore.Fetch, ts bigtable.Timestamp, form rowForm) {
	v := encodeFetchRecord(f)
	if form == rowFresh {
		m.SetOnlyVersion(FamilyFetch, colRecord, ts, v)
		return
	}
	m.Set(FamilyFetch, colRecord, ts, v)
}

// fetchRecord is the JSON form of fetch:record: the fields of [Fetch]
// but its state, each left out when empty (0, "" or false), which is how
// it reads back.
type fetchRecord struct {
	URL          string `json:"url,omitempty"`
	Status       int    `json:"status,omitempty"`
	Time         string `json:"time,omitempty"` // formatTime
	Length       int64  `json:"length,omitempty"`
	Charset      string `json:"charset,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Redirect     string `json:"redirect,omitempty"`
	Error        string `json:"error,omitempty"`
	Truncated    bool   `json:"truncated,omitempty"`
	Depth        int    `json:"depth,omitempty"`
	Links        int    `json:"links,omitempty"`
	LinksKept    int    `json:"links_kept,omitempty"`
	// Sitemap hints (crawlstore.Fetch.Sitemap), absent when the page was
	// not queued from a sitemap.
	SitemapLastMod string   `json:"sitemap_lastmod,omitempty"` // formatTime
	ChangeFreq     string   `json:"changefreq,omitempty"`
	Priority       *float64 `json:"priority,omitempty"`
	Listed         bool     `json:"sitemap,omitempty"`
	Rendered       bool     `json:"rendered,omitempty"`
	RenderMS       int64    `json:"render_ms,omitempty"`
	// The change history of a continuous crawl (crawlstore.Fetch.Change),
	// absent in other crawls; see due.go.
	Visits  int      `json:"visits,omitempty"`
	Changes int      `json:"changes,omitempty"`
	SpanMS  int64    `json:"span_ms,omitempty"`
	Rate    *float64 `json:"rate,omitempty"`
	Due     string   `json:"due,omitempty"` // formatTime
	// The estimate from Last-Modified dates (crawlstore.Change), absent
	// for a page that sends none.
	ShortestMS   int64  `json:"shortest_ms,omitempty"`
	Dated        int    `json:"dated,omitempty"`
	DatedChanges int    `json:"dated_changes,omitempty"`
	QuietMS      int64  `json:"quiet_ms,omitempty"`
	Modified     string `json:"modified,omitempty"` // formatTime
}

// encodeFetchRecord is the value of fetch:record for f: a JSON object, for
// example
//
//	{"url":"http://www.cnn.com/","status":200,"time":"2026-12-02T04:01:59.123Z","length":5120,"charset":"utf-8","depth":1,"links":12,"links_kept":12}
//
// and for a rendered page (crawl --render) also "rendered":true,"render_ms":180.
//
// Strings are stored as UTF-8: a byte that is not (in a header value or an
// error) becomes U+FFFD.
//
// NB: one cell, not a column per field: a page's fetch costs one stored
// key instead of 8-13, and keys are most of what a crawl's writes cost.
func encodeFetchRecord(f crawlstore.Fetch) []byte {
	r := fetchRecord{
		URL: f.URL, Status: f.Status, Length: f.Length, Charset: f.Charset, ETag: f.ETag,
		LastModified: f.LastModified, Redirect: f.Redirect, Error: f.Error, Truncated: f.Truncated,
		Depth: f.Depth, Links: f.Links, LinksKept: f.LinksKept,
		Rendered: f.Rendered, RenderMS: f.RenderTime.Milliseconds(),
	}
	if !f.Time.IsZero() {
		r.Time = formatTime(f.Time)
	}
	if h := f.Sitemap; h.Listed {
		r.Listed, r.ChangeFreq = true, h.ChangeFreq
		if !h.LastMod.IsZero() {
			r.SitemapLastMod = formatTime(h.LastMod)
		}
		if h.Priority >= 0 {
			p := h.Priority
			r.Priority = &p
		}
	}
	setChangeRecord(&r, f.Change)
	var b bytes.Buffer
	b.Grow(len(f.URL) + len(f.Charset) + len(f.ETag) + len(f.LastModified) + len(f.Redirect) + len(f.Error) + 160)
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false) // URLs keep their & readable
	if err := e.Encode(r); err != nil {
		panic(fmt.Sprintf("webtable: encoding a fetch record: %v", err)) // strings, numbers and a bool always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// decodeFetchRecord reads a fetch:record value into f (all but its
// state). Fields it does not know are ignored (a later version may add
// some); a field of the wrong type or a time that does not parse is an
// error.
func decodeFetchRecord(f *crawlstore.Fetch, v []byte) error {
	if v = bytes.TrimLeft(v, " \t\r\n"); len(v) == 0 || v[0] != '{' {
		return errors.New("not a JSON object")
	}
	var r fetchRecord
	d := json.NewDecoder(bytes.NewReader(v))
	if err := d.Decode(&r); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value")
	}
	var t time.Time
	if r.Time != "" {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, r.Time); err != nil {
			return err
		}
	}
	*f = crawlstore.Fetch{
		URL: r.URL, Status: r.Status, Time: t, Length: r.Length, Charset: r.Charset, ETag: r.ETag,
		LastModified: r.LastModified, Redirect: r.Redirect, Error: r.Error, Truncated: r.Truncated,
		Depth: r.Depth, Links: r.Links, LinksKept: r.LinksKept, State: f.State, SHA256: f.SHA256, MediaType: f.MediaType,
		Rendered: r.Rendered, RenderTime: time.Duration(r.RenderMS) * time.Millisecond,
	}
	if err := changeOfRecord(&f.Change, &r); err != nil {
		return err
	}
	if r.Listed {
		f.Sitemap = crawlstore.SitemapHint{Listed: true, ChangeFreq: r.ChangeFreq, Priority: -1}
		if r.Priority != nil {
			f.Sitemap.Priority = *r.Priority
		}
		if r.SitemapLastMod != "" {
			var err error
			if f.Sitemap.LastMod, err = time.Parse(time.RFC3339Nano, r.SitemapLastMod); err != nil {
				return err
			}
		}
	}
	return nil
}

// RecordField is one member of a fetch:record, for display: its name and
// its value as text (a string unquoted, a number or boolean as written).
type RecordField struct{ Name, Value string }

// maxRecordFields is the largest value RecordFields splits: a fetch record
// is a few hundred bytes, with a URL and headers well under this.
const maxRecordFields = 4096

// RecordFields splits a fetch:record value (see FetchRecordColumn) into its
// members, in stored order, so that a reader can show one per line:
//
//	{"url":"http://www.cnn.com/","status":200} -> url http://www.cnn.com/, status 200
//
// ok is false when v is not a JSON object of at most 4096 bytes whose
// members are strings, numbers or booleans: a damaged or foreign value,
// which the caller shows as it is.
func RecordFields(v []byte) (fields []RecordField, ok bool) {
	if len(v) == 0 || len(v) > maxRecordFields || v[0] != '{' || !json.Valid(v) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if _, err := d.Token(); err != nil { // {
		return nil, false
	}
	for d.More() {
		name, err := d.Token()
		if err != nil {
			return nil, false
		}
		val, err := d.Token()
		if err != nil {
			return nil, false
		}
		var s string
		switch val := val.(type) {
		case string:
			s = val
		case json.Number:
			s = val.String()
		case bool:
			s = strconv.FormatBool(val)
		default: // null, or an array or object
			return nil, false
		}
		fields = append(fields, RecordField{name.(string), s})
	}
	return fields, true
}

// parseFetch reads the fetch family of a row (its newest cells): the
// record from fetch:record, the state from fetch:state. A value that does
// not parse is reported with the row and column, never silently read as
// zero.
func parseFetch(row bigtable.Row) (crawlstore.Fetch, error) {
	var f crawlstore.Fetch
	record := false
	for _, it := range row[FamilyFetch] {
		switch qualifier(it.Column) {
		case colRecord:
			if !record {
				record = true
				if err := decodeFetchRecord(&f, it.Value); err != nil {
					return f, fmt.Errorf("webtable: row %q column %s holds %q: %w", row.Key(), it.Column, it.Value, err)
				}
			}
		case colState:
			f.State = crawlstore.ParseState(string(it.Value))
		}
	}
	return f, nil
}

// FetchOf reads the fetch record (the fetch family) of a row that [WebTable.Get]
// or [WebTable.Scan] returned; cells of other families are ignored, and so
// are older versions. A row without fetch cells gives a zero Fetch.
func FetchOf(r Row) (crawlstore.Fetch, error) {
	var items []bigtable.ReadItem
	for _, c := range r.Cells {
		if c.Family != FamilyFetch {
			continue
		}
		col := c.Column()
		if n := len(items); n > 0 && items[n-1].Column == col {
			continue // an older version
		}
		items = append(items, bigtable.ReadItem{Row: r.Key, Column: col, Timestamp: c.Timestamp, Value: c.Value})
	}
	return parseFetch(bigtable.Row{FamilyFetch: items})
}

// FetchTimes calls fn with the time of the last fetch of every row in
// ranges (the whole table when empty) that was fetched, in key order, until
// fn returns false. It reads only the time of each row's fetch record
// (fetch:record).
func (w *WebTable) FetchTimes(ctx context.Context, ranges []urlkey.Range, fn func(row string, t time.Time) bool) error {
	return w.eachFetch(ctx, ranges, "reading fetch times", fetchRecordFilter(false), func(row string, f crawlstore.Fetch) bool {
		return f.Time.IsZero() || fn(row, f.Time)
	})
}

// eachFetch calls fn, in key order, with the fetch of every row in ranges
// (the whole table when empty) as filter leaves it, until fn returns
// false. A fetch that cannot be read ends the scan with its error; what
// names the scan in the store's errors.
func (w *WebTable) eachFetch(ctx context.Context, ranges []urlkey.Range, what string, filter bigtable.Filter, fn func(row string, f crawlstore.Fetch) bool) error {
	return w.scanRows(ctx, rowSet(ranges), filter, what, func(r bigtable.Row) error {
		f, err := parseFetch(r)
		if err != nil {
			return err
		}
		if !fn(r.Key(), f) {
			return errStopScan
		}
		return nil
	})
}

// fetchRecordFilter reads a row's fetch record, newest cell only:
// fetch:record, plus fetch:state when withState. Ranges, not a regular
// expression: reads of the record run for every page stored.
func fetchRecordFilter(withState bool) bigtable.Filter {
	f := column(FamilyFetch, colRecord)
	if withState {
		f = bigtable.InterleaveFilters(f, column(FamilyFetch, colState))
	}
	return bigtable.ChainFilters(f, bigtable.LatestNFilter(1))
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
