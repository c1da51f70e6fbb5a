package crawler

import (
	"math"
	"sort"
	"time"
)

// Recrawl scheduling by estimated change rate (crawl --continuous): the
// pure policy that the freshness simulator (internal/freshsim) and the
// crawl share.
//
// A page's change rate is estimated from its visits by Cho and
// Garcia-Molina's estimator (ACM TOIT 2003): X changes seen in n visits
// over a span T estimate r = -ln((n - X + 0.5)/(n + 0.5)) / (T/n), which,
// unlike X/T, does not saturate at one change a visit. Given every page's
// rate and a budget of fetches per unit time, the freshness of the whole
// collection is highest when each page is visited at the frequency f at
// which the marginal freshness dF/df = (1 - (1 + x) e^-x) / r (x = r/f)
// is the same number mu for every page, and the frequencies sum to the
// budget: a page that changes much faster than the budget allows is
// visited rarely (each visit buys little), one that never changes
// rarely too. SolveMu finds mu, Policy.Interval the interval of a page.

// DefaultMinInterval and DefaultMaxInterval bound the interval between two
// fetches of a page (--min-interval, --max-interval).
const (
	DefaultMinInterval = time.Hour
	DefaultMaxInterval = 30 * 24 * time.Hour
)

// ChangeEstimate is what a page's visits say of its change rate.
type ChangeEstimate struct {
	// Visits counts the fetches compared with the one before them; Changes
	// those that found the content changed.
	Visits, Changes int
	// Span is the time those visits covered: from the first fetch to the
	// last.
	Span time.Duration
}

// Observe adds one visit, interval after the last one, that found the
// content changed or not. A visit not after the last one (a clock gone
// back, two fetches at one time) makes the history odd: ok is false and
// the estimate is left as it was.
func (e ChangeEstimate) Observe(interval time.Duration, changed bool) (_ ChangeEstimate, ok bool) {
	if interval <= 0 {
		return e, false
	}
	e.Visits++
	e.Span += interval
	if changed {
		e.Changes++
	}
	return e, true
}

// Visit is one fetch of a page: when, and the SHA-256 of its content.
type Visit struct {
	Time   time.Time
	SHA256 string
}

// EstimateOf estimates from visits, oldest first. ok is false for an odd
// history (times not strictly increasing): the page gets the default
// interval.
func EstimateOf(visits []Visit) (e ChangeEstimate, ok bool) {
	for i := 1; i < len(visits); i++ {
		if e, ok = e.Observe(visits[i].Time.Sub(visits[i-1].Time), visits[i].SHA256 != visits[i-1].SHA256); !ok {
			return ChangeEstimate{}, false
		}
	}
	return e, true
}

// Rate is the estimated rate of change, in changes per second; ok is
// false with fewer than minVisits visits (too little to go by).
func (e ChangeEstimate) Rate(minVisits int) (rate float64, ok bool) {
	if e.Visits < max(minVisits, 1) || e.Span <= 0 {
		return 0, false
	}
	n, x := float64(e.Visits), float64(e.Changes)
	interval := e.Span.Seconds() / n
	return -math.Log((n-x+0.5)/(n+0.5)) / interval, true
}

// Policy turns estimated change rates into intervals between fetches.
type Policy struct {
	// Min and Max bound every interval.
	Min, Max time.Duration
	// Mu is the marginal freshness that every page's frequency is chosen
	// for (SolveMu); 0 visits every page at Min.
	Mu float64
}

// marginal is 1 - (1 + x) e^-x, increasing from 0 to 1.
func marginal(x float64) float64 { return -math.Expm1(-x) - x*math.Exp(-x) }

// frequency is the visits per second of a page of rate r (per second) at
// marginal freshness mu, before bounds: 0 when no frequency reaches mu.
func frequency(r, mu float64) float64 {
	if r <= 0 || mu*r >= 1 {
		return 0
	}
	if mu <= 0 {
		return math.Inf(1)
	}
	// Solve marginal(x) = mu*r for x = r/f by bisection: marginal is
	// increasing.
	target := mu * r
	lo, hi := 0.0, 1.0
	for marginal(hi) < target {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if marginal(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return r / hi
}

// Interval is how long after a fetch a page of estimated rate r (changes
// per second) is due again, within [Min, Max].
func (p Policy) Interval(r float64) time.Duration {
	f := frequency(r, p.Mu)
	if f <= 0 {
		return p.Max
	}
	d := time.Duration(float64(time.Second) / f)
	if f > 1e9 || d < p.Min {
		return p.Min
	}
	return min(d, p.Max)
}

// SolveMu returns the mu at which pages of the given rates (per second),
// each visited at Policy{min, max, mu}.Interval, take budget visits per
// second in all (as near as the bounds allow). Rates are grouped by
// 1/32 of a decade, so the work grows with the spread of the rates, not
// their number.
func SolveMu(rates []float64, budget float64, min, max time.Duration) float64 {
	if len(rates) == 0 || budget <= 0 {
		return 0
	}
	groups := map[int]float64{} // bucket -> pages
	zero := 0.0                 // pages that never changed
	for _, r := range rates {
		if r <= 0 {
			zero++
			continue
		}
		groups[int(math.Round(math.Log10(r)*32))]++
	}
	type group struct{ rate, pages float64 }
	gs := make([]group, 0, len(groups))
	for b, n := range groups {
		gs = append(gs, group{math.Pow(10, float64(b)/32), n})
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].rate < gs[j].rate })
	spend := func(mu float64) float64 {
		p := Policy{Min: min, Max: max, Mu: mu}
		sum := zero / p.Interval(0).Seconds()
		for _, g := range gs {
			sum += g.pages / p.Interval(g.rate).Seconds()
		}
		return sum
	}
	// NB: spend falls as mu grows; bisect on a log scale.
	lo, hi := 1e-12, 1e12
	for range 80 {
		mid := math.Sqrt(lo * hi)
		if spend(mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
