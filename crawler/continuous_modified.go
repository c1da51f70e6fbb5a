package crawler

import (
	"net/http"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// Last-Modified in the live crawl. A fetch whose response carried a
// Last-Modified date dates the page's last change (FirstModified,
// ChangeEstimate.ObserveModified): in the freshness simulator
// (internal/freshsim) the dated pages are where the policy gains most
// over uniform revisits. The estimate's state is kept with the
// fetch record (crawlstore.Change), the date too (Change.Modified), so
// that a 304 without the header keeps the date it confirmed.

// earliestModified is the earliest Last-Modified date the estimate
// believes: a server that says its page last changed before the web had
// many servers (1995) sends a default, not a date.
var earliestModified = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

// modifiedOf is the Last-Modified date of p, fetched at p.Time, that
// the estimate goes by: zero (ok) when the response had none, or none
// that parses; for a 304 without one, the date last recorded. ok is false
// for a date the history cannot hold, which gives the page the default
// interval: after the fetch (the server's clock or the crawl's is wrong)
// or before 1995.
func modifiedOf(p *crawlstore.Page, last crawlstore.Fetch) (t time.Time, ok bool) {
	if p.LastModified != "" {
		t, _ = http.ParseTime(p.LastModified)
	} else if p.NotModified {
		t = last.Change.Modified
	}
	switch {
	case t.IsZero():
		return time.Time{}, true
	case t.After(p.Time) || t.Before(earliestModified):
		return time.Time{}, false
	}
	return t.UTC(), true
}

// estimateOfChange is the estimate a stored change history holds.
func estimateOfChange(c crawlstore.Change) ChangeEstimate {
	return ChangeEstimate{Visits: c.Visits, Changes: c.Changes, Span: c.Span, Shortest: c.Shortest,
		Dated: c.Dated, DatedChanges: c.DatedChanges, Quiet: c.Quiet}
}

// changeOfEstimate is the change history that stores e, its rate unknown
// (-1) and no due time yet.
func changeOfEstimate(e ChangeEstimate, modified time.Time) crawlstore.Change {
	return crawlstore.Change{Visits: e.Visits, Changes: e.Changes, Span: e.Span, Shortest: e.Shortest,
		Dated: e.Dated, DatedChanges: e.DatedChanges, Quiet: e.Quiet, Modified: modified, Rate: -1}
}

// observe adds the fetch p (at p.Time, changed or not) to the estimate
// of the fetch before it (last; first: there was none), dated by its
// Last-Modified mod when not zero. ok is false for an odd history: a
// fetch not after the one before it (a clock gone back, two fetches at
// one time).
func observe(p *crawlstore.Page, last crawlstore.Fetch, first bool, mod time.Time) (e ChangeEstimate, ok bool) {
	if first {
		if mod.IsZero() {
			return ChangeEstimate{}, true
		}
		return FirstModified(p.Time.Sub(mod))
	}
	e = estimateOfChange(last.Change)
	changed := !p.NotModified && p.SHA256 != "" && p.SHA256 != last.SHA256
	interval := p.Time.Sub(last.Time)
	if mod.IsZero() {
		return e.Observe(interval, changed)
	}
	return e.ObserveModified(interval, p.Time.Sub(mod), changed)
}
