package crawler

import (
	"net/http"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestDueChangeModified: what a fetch with a Last-Modified date makes of
// a page's change history, and that a date the history cannot hold (in
// the future, before 1995) or fetches at one time give the page the
// default interval and start its history again.
func TestDueChangeModified(t *testing.T) {
	d := &duePolicy{min: time.Hour, max: 100 * time.Hour, pages: map[string]float64{}}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	lm := func(at time.Duration) string { return t0.Add(at).Format(http.TimeFormat) }
	page := func(at time.Duration, sum, modified string, notModified bool) *crawlstore.Page {
		return &crawlstore.Page{Key: "k", Time: t0.Add(at), SHA256: sum, LastModified: modified, NotModified: notModified}
	}
	dated := crawlstore.Change{Dated: 1, DatedChanges: 1, Quiet: 10 * time.Hour, Modified: t0.Add(-10 * time.Hour), Rate: -1, Due: t0.Add(time.Hour)}
	last := crawlstore.Fetch{Time: t0, SHA256: "a", State: crawlstore.StateDone, Change: dated}
	odd := crawlstore.Change{Rate: -1, Due: t0.Add(3 * time.Hour)}
	for _, tc := range []struct {
		name string
		p    *crawlstore.Page
		last crawlstore.Fetch
		ok   bool
		want crawlstore.Change
	}{
		{"first fetch, dated", page(0, "a", lm(-10*time.Hour), false), crawlstore.Fetch{}, false, dated},
		{"dated, unchanged", page(2*time.Hour, "a", lm(-10*time.Hour), false), last, true,
			crawlstore.Change{Visits: 1, Span: 2 * time.Hour, Shortest: 2 * time.Hour, Dated: 2, DatedChanges: 1, Quiet: 12 * time.Hour,
				Modified: t0.Add(-10 * time.Hour), Rate: 0.5 / (12 * 3600), Due: t0.Add(3 * time.Hour)}},
		{"dated, changed", page(2*time.Hour, "b", lm(time.Hour), false), last, true,
			crawlstore.Change{Visits: 1, Changes: 1, Span: 2 * time.Hour, Shortest: 2 * time.Hour, Dated: 2, DatedChanges: 2, Quiet: 11 * time.Hour,
				Modified: t0.Add(time.Hour), Rate: 1.0 / (11 * 3600), Due: t0.Add(3 * time.Hour)}},
		{"304 without a date keeps the last", page(2*time.Hour, "", "", true), last, true,
			crawlstore.Change{Visits: 1, Span: 2 * time.Hour, Shortest: 2 * time.Hour, Dated: 2, DatedChanges: 1, Quiet: 12 * time.Hour,
				Modified: t0.Add(-10 * time.Hour), Rate: 0.5 / (12 * 3600), Due: t0.Add(3 * time.Hour)}},
		{"date and content disagree", page(2*time.Hour, "a", lm(time.Hour), false), last, true,
			crawlstore.Change{Visits: 1, Span: 2 * time.Hour, Shortest: 2 * time.Hour, Dated: 1, DatedChanges: 1, Quiet: 10 * time.Hour,
				Modified: t0.Add(time.Hour), Rate: -1, Due: t0.Add(3 * time.Hour)}},
		{"undated after dated", page(2*time.Hour, "b", "", false), last, true,
			crawlstore.Change{Visits: 1, Changes: 1, Span: 2 * time.Hour, Shortest: 2 * time.Hour, Dated: 1, DatedChanges: 1, Quiet: 10 * time.Hour,
				Rate: -1, Due: t0.Add(3 * time.Hour)}},
		{"Last-Modified in the future", page(2*time.Hour, "b", lm(3*time.Hour), false), last, true, odd},
		{"Last-Modified before 1995", page(2*time.Hour, "b", "Sun, 01 Jan 1990 00:00:00 GMT", false), last, true, odd},
		{"first fetch, Last-Modified in the future", page(2*time.Hour, "b", lm(3*time.Hour), false), crawlstore.Fetch{}, false, odd},
		{"fetches at one time", page(0, "b", lm(-time.Hour), false), last, true, crawlstore.Change{Rate: -1, Due: t0.Add(time.Hour)}},
		{"clock gone back", page(-time.Hour, "b", lm(-2*time.Hour), false), last, true, crawlstore.Change{Rate: -1, Due: t0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := d.change(tc.p, tc.last, tc.ok); got != tc.want {
				t.Errorf("change = %+v\nwant       %+v", got, tc.want)
			}
		})
	}
}

// TestDueBudgetDated: with a budget, a dated page is scheduled by
// Policy.Next at the mu solved for the rates fetched, with the budget
// the pages without an estimate leave.
func TestDueBudgetDated(t *testing.T) {
	d := &duePolicy{min: time.Hour, max: 1000 * time.Hour, budget: (2 + 1.0/50) / 3600, pages: map[string]float64{}}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	// Two pages with no estimate yet take 2 fetches an hour: the dated page
	// gets the rest, one fetch in 50 hours.
	for _, k := range []string{"new1", "new2"} {
		if c := d.change(&crawlstore.Page{Key: k, Time: t0, SHA256: "x"}, crawlstore.Fetch{}, false); c.Due != t0.Add(time.Hour) {
			t.Fatalf("first fetch of %s due %v, want after min", k, c.Due)
		}
	}
	last := crawlstore.Fetch{Time: t0, SHA256: "a", State: crawlstore.StateDone,
		Change: crawlstore.Change{Dated: 1, DatedChanges: 1, Quiet: 100 * time.Hour, Modified: t0.Add(-100 * time.Hour)}}
	p := &crawlstore.Page{Key: "k", Time: t0.Add(10 * time.Hour), SHA256: "b", LastModified: t0.Add(5 * time.Hour).Format(http.TimeFormat)}
	c := d.change(p, last, true)
	rate := 1.0 / (105 * 3600) // two dated changes over 105 h quiet
	if c.Rate != rate {
		t.Fatalf("rate = %v, want %v", c.Rate, rate)
	}
	mu := SolveMu([]float64{rate}, d.budget-2/d.min.Seconds(), d.min, d.max)
	pol := Policy{Min: d.min, Max: d.max, Mu: mu, Probe: dueProbe}
	e := estimateOfChange(c)
	if want := p.Time.Add(pol.Next(e, dueMinVisits, d.min)); c.Due != want || c.Due == p.Time.Add(d.min) {
		t.Errorf("due %v, want %v (mu %v), not the default interval", c.Due, want, mu)
	}
	if got := c.Due.Sub(p.Time); got < 45*time.Hour || got > 55*time.Hour {
		t.Errorf("due %v after the fetch, want about 50h", got)
	}
}
