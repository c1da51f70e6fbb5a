package webui

import (
	"net/http"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// failureScan bounds the rows one page of the failures view reads, so that a
// page answers quickly however rare failures are; the cursor then carries
// on from the last row read.
const failureScan = 2000

// failuresData is a page of failed URLs.
type failuresData struct {
	Domain  string
	Rows    []rowEntry
	After   string
	Next    string
	Scanned int
}

// jsonFailures is the JSON of the failures view: "query errors --json"
// records and the cursor of the next page.
type jsonFailures struct {
	Failures []jsonFailure `json:"failures"`
	Next     string        `json:"next,omitempty"`
}

func (ui *UI) failures(r *http.Request) (result, error) {
	q := r.URL.Query()
	domain, after := q.Get("domain"), q.Get("after")
	var ranges []urlkey.Range
	if domain != "" {
		if ranges = urlkey.DomainRanges(domain); len(ranges) == 0 {
			return result{}, badRequest("%q is not a domain name (want one such as cnn.com)", domain)
		}
	}
	rs := clip(ranges, after)
	d := failuresData{Domain: domain, After: after}
	j := jsonFailures{Failures: []jsonFailure{}}
	if len(ranges) == 0 || len(rs) > 0 {
		// NB: the scan reads one cell a row (fetch:state); only the failed
		// rows' fetch records are read whole.
		var failed []string
		last := ""
		q := webtable.Query{Column: webtable.FamilyFetch + ":state"}
		err := ui.w.Scan(r.Context(), rs, q, failureScan, func(row webtable.Row) bool {
			d.Scanned++
			last = row.Key
			if len(row.Cells) > 0 && crawlstore.ParseState(string(row.Cells[0].Value)) == crawlstore.StateFailed {
				failed = append(failed, row.Key)
			}
			return len(failed) < ui.opts.PageSize
		})
		if err != nil {
			return result{}, err
		}
		for _, k := range failed {
			row, err := ui.w.Get(r.Context(), k, webtable.Query{Family: webtable.FamilyFetch})
			if err != nil {
				return result{}, err
			}
			f, err := webtable.FetchOf(row)
			if err != nil {
				return result{}, err
			}
			d.Rows = append(d.Rows, rowEntry{Key: k, URL: urlOf(k, f), Fetch: f})
			j.Failures = append(j.Failures, toJSONFailure(k, f))
		}
		if len(failed) == ui.opts.PageSize || d.Scanned == failureScan {
			d.Next = last
		}
	}
	j.Next = d.Next
	return result{page: "failures", title: "failed fetches", data: d, json: j}, nil
}
