// Package jsonshape holds the JSON shapes of rows, cells, versions, failed
// fetches, tablets and table counts that "query --json" prints and "query serve" answers
// with Accept: application/json, so the two can never drift apart.
package jsonshape

import (
	"encoding/base64"
	"time"
	"unicode/utf8"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// Cell is a cell: value when it is valid UTF-8, value_base64 otherwise.
type Cell struct {
	Column      string  `json:"column"`
	Timestamp   int64   `json:"timestamp"`
	Value       *string `json:"value,omitempty"`
	ValueBase64 *string `json:"value_base64,omitempty"`
}

// Row is a row, as "query get --json" and "query scan --json" print it.
type Row struct {
	Row   string `json:"row"`
	Cells []Cell `json:"cells,omitempty"`
}

// RowOf is r's JSON shape; with keysOnly, its key alone.
func RowOf(r webtable.Row, keysOnly bool) Row {
	jr := Row{Row: r.Key}
	if keysOnly {
		return jr
	}
	jr.Cells = make([]Cell, len(r.Cells))
	for i, c := range r.Cells {
		jc := Cell{Column: c.Column(), Timestamp: int64(c.Timestamp)}
		if utf8.Valid(c.Value) {
			s := string(c.Value)
			jc.Value = &s
		} else {
			s := base64.StdEncoding.EncodeToString(c.Value)
			jc.ValueBase64 = &s
		}
		jr.Cells[i] = jc
	}
	return jr
}

// Version is a version of a page's HTML, as "query versions --json"
// prints it.
type Version struct {
	Row       string `json:"row"`
	Timestamp int64  `json:"timestamp"`
	Time      string `json:"time"`
	Size      int    `json:"size"`
	SHA256    string `json:"sha256"`
	Status    int    `json:"status"`
}

// VersionOf is v's JSON shape.
func VersionOf(v webtable.Version) Version {
	return Version{Row: v.Row, Timestamp: int64(v.Timestamp), Time: v.Timestamp.Time().UTC().Format(time.RFC3339Nano),
		Size: v.Size, SHA256: v.SHA256, Status: v.Status}
}

// Failure is a failed URL, as "query errors --json" prints it; Time is
// empty when the URL was never fetched.
type Failure struct {
	Row    string `json:"row"`
	URL    string `json:"url"`
	Status int    `json:"status"`
	Time   string `json:"time"`
	Error  string `json:"error"`
}

// FailureOf is the JSON shape of the failed fetch f of row.
func FailureOf(row string, f crawlstore.Fetch) Failure {
	t := ""
	if f.Fetched() {
		t = f.Time.UTC().Format(time.RFC3339Nano)
	}
	return Failure{Row: row, URL: f.URL, Status: f.Status, Time: t, Error: f.Error}
}

// Tablet is a tablet, as "query tablets --json" prints it.
type Tablet struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Bytes int64  `json:"bytes"`
	Rows  int64  `json:"rows"`
}

// TabletOf is t's JSON shape.
func TabletOf(t webtable.Tablet) Tablet {
	return Tablet{Start: t.Start, End: t.End, Bytes: t.Bytes, Rows: t.Rows}
}

// Stats is the counts of the table or of a domain, as "query stats
// --json" prints them and the overview of "query serve" answers them.
type Stats struct {
	Rows     int64            `json:"rows"`
	Fetched  int64            `json:"fetched"`
	Failed   int64            `json:"failed"`
	Queued   int64            `json:"queued"`
	Frontier int64            `json:"frontier"`
	Versions int64            `json:"versions"`
	Bytes    map[string]int64 `json:"bytes"`
	Cells    map[string]int64 `json:"cells"`
}

// StatsOf is s's JSON shape.
func StatsOf(s webtable.Stats) Stats {
	return Stats{Rows: s.Rows, Fetched: s.Fetched, Failed: s.Failed, Queued: s.Queued, Frontier: s.Frontier,
		Versions: s.Versions, Bytes: s.Bytes, Cells: s.Cells}
}
