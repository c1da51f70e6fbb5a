package freshsim

import (
	"time"

	"github.com/webtable/webtable/crawler"
)

// Uniform visits every page at the same interval.
type Uniform struct{ Interval time.Duration }

// Visited returns the interval.
func (u *Uniform) Visited(int, time.Duration, bool) time.Duration { return u.Interval }

// Tick does nothing.
func (u *Uniform) Tick(time.Duration) {}

// Nutch is Nutch's AdaptiveFetchSchedule: each page's interval starts at
// Start and is multiplied by 1.4 after a visit that found it unchanged, by
// 0.8 after one that found it changed, within 60 s and 365 days.
type Nutch struct {
	Start    time.Duration
	interval map[int]time.Duration
}

// Visited moves the page's interval and returns it.
func (n *Nutch) Visited(i int, _ time.Duration, changed bool) time.Duration {
	if n.interval == nil {
		n.interval = map[int]time.Duration{}
	}
	d, ok := n.interval[i]
	switch {
	case !ok:
		d = n.Start
	case changed:
		d = time.Duration(float64(d) * 0.8)
	default:
		d = time.Duration(float64(d) * 1.4)
	}
	d = min(max(d, time.Minute), 365*24*time.Hour)
	n.interval[i] = d
	return d
}

// Tick does nothing.
func (n *Nutch) Tick(time.Duration) {}

// ByChangeRate is the crawl's policy: each page's rate estimated from its
// visits (crawler.ChangeEstimate), its interval from crawler.Policy, and
// the policy's mu solved each day (crawler.SolveMu) so that the budget is
// spent. A page with fewer than MinVisits visits is due at Start.
type ByChangeRate struct {
	Start    time.Duration
	Budget   float64 // fetches a second
	Min, Max time.Duration
	// MinVisits is how many visits an estimate needs.
	MinVisits int
	// Oracle, when set, are the true rates, used in place of the
	// estimates: the bound the estimates are measured against.
	Oracle []float64

	est    map[int]crawler.ChangeEstimate
	last   map[int]time.Duration
	policy crawler.Policy
}

// Visited adds the visit to the page's estimate and returns its interval.
func (b *ByChangeRate) Visited(i int, now time.Duration, changed bool) time.Duration {
	if b.est == nil {
		b.est, b.last = map[int]crawler.ChangeEstimate{}, map[int]time.Duration{}
	}
	if last, ok := b.last[i]; ok {
		if e, ok := b.est[i].Observe(now-last, changed); ok {
			b.est[i] = e
		}
	}
	b.last[i] = now
	r, ok := b.est[i].Rate(b.MinVisits)
	if b.Oracle != nil {
		r, ok = b.Oracle[i], true
	}
	if !ok || b.policy.Mu == 0 {
		return b.Start
	}
	return b.policy.Interval(r)
}

// Tick solves mu for the rates estimated so far, leaving the budget the
// pages without an estimate take at Start.
func (b *ByChangeRate) Tick(time.Duration) {
	var rates []float64
	unknown := 0
	for i, e := range b.est {
		if b.Oracle != nil {
			rates = append(rates, b.Oracle[i])
		} else if r, ok := e.Rate(b.MinVisits); ok {
			rates = append(rates, r)
		} else {
			unknown++
		}
	}
	left := b.Budget - float64(unknown)/b.Start.Seconds()
	if len(rates) == 0 || left <= 0 {
		return
	}
	b.policy = crawler.Policy{Min: b.Min, Max: b.Max, Mu: crawler.SolveMu(rates, left, b.Min, b.Max)}
}
