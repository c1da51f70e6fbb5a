package webui

import (
	"encoding/base64"
	"time"
	"unicode/utf8"

	"github.com/webtable/webtable/webtable"
)

// The JSON shapes below are those "query --json" prints, field for field
// (cmd/query's TestServeJSONMatchesQuery holds them together).

// jsonCell is a cell: value when it is valid UTF-8, value_base64 otherwise.
type jsonCell struct {
	Column      string  `json:"column"`
	Timestamp   int64   `json:"timestamp"`
	Value       *string `json:"value,omitempty"`
	ValueBase64 *string `json:"value_base64,omitempty"`
}

// jsonRow is a row, as "query get --json" and "query scan --json" print it.
type jsonRow struct {
	Row   string     `json:"row"`
	Cells []jsonCell `json:"cells,omitempty"`
}

func toJSONRow(r webtable.Row) jsonRow {
	jr := jsonRow{Row: r.Key}
	for _, c := range r.Cells {
		jc := jsonCell{Column: c.Column(), Timestamp: int64(c.Timestamp)}
		if utf8.Valid(c.Value) {
			s := string(c.Value)
			jc.Value = &s
		} else {
			s := base64.StdEncoding.EncodeToString(c.Value)
			jc.ValueBase64 = &s
		}
		jr.Cells = append(jr.Cells, jc)
	}
	return jr
}

// jsonVersion is a version of a page's HTML, as "query versions --json"
// prints it.
type jsonVersion struct {
	Row       string `json:"row"`
	Timestamp int64  `json:"timestamp"`
	Time      string `json:"time"`
	Size      int    `json:"size"`
	SHA256    string `json:"sha256"`
	Status    int    `json:"status"`
}

func toJSONVersion(v webtable.Version) jsonVersion {
	return jsonVersion{Row: v.Row, Timestamp: int64(v.Timestamp), Time: v.Timestamp.Time().UTC().Format(time.RFC3339Nano),
		Size: v.Size, SHA256: v.SHA256, Status: v.Status}
}

// jsonFailure is a failed URL, as "query errors --json" prints it.
type jsonFailure struct {
	Row    string `json:"row"`
	URL    string `json:"url"`
	Status int    `json:"status"`
	Time   string `json:"time"`
	Error  string `json:"error"`
}

func toJSONFailure(row string, f webtable.Fetch) jsonFailure {
	t := ""
	if f.Fetched() {
		t = f.Time.UTC().Format(time.RFC3339Nano)
	}
	return jsonFailure{Row: row, URL: f.URL, Status: f.Status, Time: t, Error: f.Error}
}

// jsonStats is the counts of the table, as "query stats --json" prints them.
type jsonStats struct {
	Rows     int64            `json:"rows"`
	Fetched  int64            `json:"fetched"`
	Failed   int64            `json:"failed"`
	Queued   int64            `json:"queued"`
	Versions int64            `json:"versions"`
	Bytes    map[string]int64 `json:"bytes"`
	Cells    map[string]int64 `json:"cells"`
}

// jsonTablet is a tablet, as "query tablets --json" prints it.
type jsonTablet struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Bytes int64  `json:"bytes"`
	Rows  int64  `json:"rows"`
}
