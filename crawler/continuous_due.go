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
// store as crawlstore.Change): the time since the last fetch, whether the
// content changed (its SHA-256 differs from the newest stored; a 304 is
// unchanged), and the response's Last-Modified date, which dates the
// change (continuous_modified.go). The rate is Policy.RateOf of the
// estimate, with at least dueMinVisits visits (dated fetches count the
// first), and the page is due again Policy.Next after the fetch, within
// [MinInterval, MaxInterval]. A page with no estimate yet, with an odd
// history (the clock went back, two fetches at one time, a Last-Modified
// after the fetch or before 1995), or whose fetch failed is due after
// MinInterval: the default interval. An odd history starts again.
//
// Without a budget the policy's mu is 0: a page that was ever seen
// changing is due after MinInterval, one that never was after
// MaxInterval. With a budget (--budget N/DUR), mu is solved (SolveMu), as
// the freshness simulator does, for the rates of the pages fetched
// lately, with the budget that the pages of no estimate yet (due after
// MinInterval) leave, spending it where it buys the most freshness.

// rateSampleSize is how many pages' rates the policy's mu is solved for:
// the latest fetched, one each.
const rateSampleSize = 4096

// dueSolveEvery is how many fetches go between two solves of mu.
const dueSolveEvery = 256

// dueMinVisits is how many visits an estimate needs before it schedules
// its page (the freshness simulator's MinVisits).
const dueMinVisits = 2

// dueProbe is the policy's Probe: the freshness simulator measured 0.1
// best of 0.1, 0.25, 0.5 and 1.
const dueProbe = 0.1

// duePolicy computes when pages are due again.
type duePolicy struct {
	min, max time.Duration
	budget   float64 // fetches per second; 0 for none

	mu     sync.Mutex
	pages  map[string]float64 // row key -> rate (-1: none yet), of the latest fetched
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
	first := !ok || !last.Fetched()
	if p.Err != "" {
		if first {
			return crawlstore.Change{Rate: -1, Due: now.Add(d.min)}
		}
		prev := last.Change
		prev.Due = now.Add(d.min)
		if prev.Visits == 0 && prev.Dated == 0 {
			prev.Rate = -1
		}
		return prev
	}
	mod, ok := modifiedOf(p, last)
	var e ChangeEstimate
	if ok {
		e, ok = observe(p, last, first, mod)
	}
	if !ok {
		return crawlstore.Change{Rate: -1, Due: now.Add(d.min)} // an odd history starts again
	}
	c := changeOfEstimate(e, mod)
	rate, known := d.policy().RateOf(e, dueMinVisits)
	if known {
		c.Rate = rate + 0 // NB: +0, not the -0 of -ln(1) for a page never seen changing
	}
	d.observe(p.Key, c.Rate)
	pol := d.policy() // NB: after observe, which may solve mu again
	switch {
	case !known:
		c.Due = now.Add(d.min)
	case d.budget <= 0:
		c.Due = now.Add(pol.Interval(rate))
	default:
		c.Due = now.Add(pol.Next(e, dueMinVisits, d.min))
	}
	return c
}

// policy is the policy that schedules pages now: mu as last solved (0
// without a budget, or before the first solve).
func (d *duePolicy) policy() Policy {
	d.mu.Lock()
	defer d.mu.Unlock()
	return Policy{Min: d.min, Max: d.max, Mu: d.solved, Probe: dueProbe}
}

// observe records the rate of the page of row key (-1: none yet), and
// solves mu again every dueSolveEvery fetches, as the freshness
// simulator does: for the rates known, with the budget the pages without
// one leave (each due after min).
func (d *duePolicy) observe(key string, rate float64) {
	if d.budget <= 0 {
		return
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
	if d.since++; d.since < dueSolveEvery && d.solved != 0 {
		return
	}
	d.since = 0
	rates := make([]float64, 0, len(d.pages))
	unknown := 0
	for _, r := range d.pages {
		if r < 0 {
			unknown++
			continue
		}
		rates = append(rates, r)
	}
	// NB: the sample stands for every page: in a crawl of more pages than
	// it holds the intervals ask for more than the budget, and the token
	// bucket (budget.go) holds the fetches to it.
	left := d.budget - float64(unknown)/d.min.Seconds()
	if len(rates) == 0 || left <= 0 {
		return
	}
	d.solved = SolveMu(rates, left, d.min, d.max)
}
