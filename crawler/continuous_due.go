package crawler

import (
	"sync"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// When a page is due again.
//
// With each fetch of a continuous crawl the crawler adds one visit to the
// page's change history (the ChangeEstimate of recrawl.go, kept in the
// store as crawlstore.Change): the time since the last fetch, and whether
// the content changed (its SHA-256 differs from the newest stored; a 304
// is unchanged). The page is due again after Policy.Interval of its
// estimated rate, within [MinInterval, MaxInterval]. A page with no
// estimate yet (first fetch), with an odd history (the clock went back),
// or whose fetch failed is due after MinInterval: the default interval.
//
// Without a budget the policy's mu is 0: a page that was ever seen
// changing is due after MinInterval, one that never was after
// MaxInterval. With a budget (--budget N/DUR), mu is solved (SolveMu) so
// that the intervals of the pages fetched lately add up to the budget,
// spending it where it buys the most freshness.

// rateSampleSize is how many pages' rates the policy's mu is solved for:
// the latest fetched, one each.
const rateSampleSize = 4096

// dueSolveEvery is how many fetches go between two solves of mu.
const dueSolveEvery = 256

// duePolicy computes when pages are due again.
type duePolicy struct {
	min, max time.Duration
	budget   float64 // fetches per second; 0 for none

	mu     sync.Mutex
	pages  map[string]float64 // row key -> rate, of the latest fetched
	order  []string           // their keys, oldest first
	solved float64            // the policy's mu
	since  int                // fetches since the last solve
}

func newDuePolicy(cfg *Config) *duePolicy {
	return &duePolicy{min: cfg.MinInterval, max: cfg.MaxInterval, budget: cfg.Budget.rate(), pages: map[string]float64{}}
}

// change is p's change history after this fetch, whose last fetch was
// last (ok: there was one), and when p is due again.
func (d *duePolicy) change(p *crawlstore.Page, last crawlstore.Fetch, ok bool) crawlstore.Change {
	now := p.Time
	if !ok || !last.Fetched() {
		return crawlstore.Change{Rate: -1, Due: now.Add(d.min)}
	}
	prev := last.Change
	if p.Err != "" {
		prev.Due = now.Add(d.min)
		if prev.Visits == 0 {
			prev.Rate = -1
		}
		return prev
	}
	changed := !p.NotModified && p.SHA256 != "" && p.SHA256 != last.SHA256
	e := ChangeEstimate{Visits: prev.Visits, Changes: prev.Changes, Span: prev.Span}
	e, ok = e.Observe(now.Sub(last.Time), changed)
	if !ok {
		return crawlstore.Change{Rate: -1, Due: now.Add(d.min)} // an odd history starts again
	}
	c := crawlstore.Change{Visits: e.Visits, Changes: e.Changes, Span: e.Span, Rate: -1}
	rate, ok := e.Rate(1)
	if !ok {
		c.Due = now.Add(d.min)
		return c
	}
	c.Rate = rate + 0 // NB: +0, not the -0 of -ln(1) for a page never seen changing
	c.Due = now.Add(Policy{Min: d.min, Max: d.max, Mu: d.observe(p.Key, rate)}.Interval(rate))
	return c
}

// observe records the rate of the page of row key, and returns the mu
// to schedule it with.
func (d *duePolicy) observe(key string, rate float64) float64 {
	if d.budget <= 0 {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, seen := d.pages[key]; !seen {
		d.order = append(d.order, key)
		if len(d.order) > rateSampleSize {
			delete(d.pages, d.order[0])
			d.order = d.order[1:]
		}
	}
	d.pages[key] = rate
	if d.since++; d.since >= dueSolveEvery || d.solved == 0 {
		d.since = 0
		rates := make([]float64, 0, len(d.pages))
		for _, r := range d.pages {
			rates = append(rates, r)
		}
		// NB: the sample stands for every page: in a crawl of more pages
		// than it holds the intervals ask for more than the budget, and
		// the token bucket (budget.go) holds the fetches to it.
		d.solved = SolveMu(rates, d.budget, d.min, d.max)
	}
	return d.solved
}
