package crawler

import "time"

// Probing. Without Last-Modified a page is only ever seen changed or not,
// and one that changed at every visit, days apart, may change once in two
// days (worth visiting every day) or a hundred times a day (not worth a
// visit: it is stale within minutes). Cho's estimator says ln(2n+1)/I
// either way, so a policy that believes it spends its budget on pages too
// fast to keep fresh. One visit soon after the second tells them apart: a
// page that changed again within a fraction of Mu is too fast.

// TooFast is the rate, in changes per second (once a minute), that
// Policy.RateOf gives a page found too fast to keep fresh: any Mu above a
// minute visits it at Max.
const TooFast = 1 / 60.0

// probing reports whether e is of a page without Last-Modified whose every
// visit (two at least) found a change.
func probing(e ChangeEstimate) bool {
	return e.Dated <= e.Visits && e.Visits >= 2 && e.Changes == e.Visits
}

// probeAfter is the interval of a probe visit.
func (p Policy) probeAfter() time.Duration {
	return max(time.Duration(p.Probe*p.Mu*float64(time.Second)), p.Min)
}

// RateOf is the rate, in changes per second, that p schedules a page of
// estimate e by (the rates given to SolveMu, and Next's): e.Rate(minVisits),
// or, with Probe set, TooFast for a page without Last-Modified that
// changed at every one of three visits or more, the probe included. ok is
// false with too few visits.
func (p Policy) RateOf(e ChangeEstimate, minVisits int) (rate float64, ok bool) {
	r, ok := e.Rate(minVisits)
	if ok && p.Probe > 0 && p.Mu > 0 && probing(e) && e.Visits > 2 {
		return TooFast, true
	}
	return r, ok
}

// Next is how long after its latest fetch a page of estimate e is due:
// start while the estimate has fewer than minVisits visits or no Mu is
// solved yet; with Probe set, the probe interval for a page without
// Last-Modified whose two visits both found a change; otherwise
// Interval(RateOf).
//
// NB: the probe is not counted in SolveMu's budget (it is one fetch a page
// in its life), and a crawl behind schedule makes it late; a late probe
// that finds a change still marks the page too fast.
func (p Policy) Next(e ChangeEstimate, minVisits int, start time.Duration) time.Duration {
	r, ok := p.RateOf(e, minVisits)
	if !ok || p.Mu == 0 {
		return start
	}
	if p.Probe > 0 && probing(e) && e.Visits == 2 {
		return p.probeAfter()
	}
	return p.Interval(r)
}
