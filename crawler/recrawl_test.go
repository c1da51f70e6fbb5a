package crawler

import (
	"math"
	"testing"
	"time"
)

func TestChangeEstimate(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	v := func(d time.Duration, sha string) Visit { return Visit{Time: t0.Add(d), SHA256: sha} }
	for _, tc := range []struct {
		name   string
		visits []Visit
		ok     bool
		rate   float64 // changes a day; -1: no rate
	}{
		{"never changed", []Visit{v(0, "a"), v(day, "a"), v(2*day, "a")}, true, 0},
		// X=1, n=2, I=1 day: -ln(1.5/2.5) = 0.5108.
		{"one change in two", []Visit{v(0, "a"), v(day, "b"), v(2*day, "b")}, true, 0.5108},
		// X=n=2: -ln(0.5/2.5) = ln 5, not infinite.
		{"changed every visit", []Visit{v(0, "a"), v(day, "b"), v(2*day, "c")}, true, math.Log(5)},
		{"one visit", []Visit{v(0, "a")}, true, -1},
		{"clock went back", []Visit{v(0, "a"), v(day, "b"), v(day/2, "c")}, false, -1},
		{"two at one time", []Visit{v(0, "a"), v(0, "b")}, false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := EstimateOf(tc.visits)
			if ok != tc.ok {
				t.Fatalf("EstimateOf ok = %v, want %v", ok, tc.ok)
			}
			r, rok := e.Rate(2)
			if tc.rate < 0 {
				if rok {
					t.Errorf("Rate = %v, want none", r)
				}
				return
			}
			if got := r * 86400; !rok || math.Abs(got-tc.rate) > 1e-3 {
				t.Errorf("Rate = %.4f a day (ok %v), want %.4f", got, rok, tc.rate)
			}
		})
	}
}

func TestPolicyInterval(t *testing.T) {
	day := 24 * time.Hour
	p := Policy{Min: time.Hour, Max: 30 * day, Mu: 5 * 86400} // mu in seconds: pages changing faster than 1/(5 days) are not worth it
	perDay := func(n float64) float64 { return n / 86400 }
	if got := p.Interval(0); got != p.Max {
		t.Errorf("Interval(never changes) = %v, want Max %v", got, p.Max)
	}
	if got := p.Interval(perDay(100)); got != p.Max {
		t.Errorf("Interval(100 changes a day) = %v, want Max %v (too fast to keep fresh)", got, p.Max)
	}
	slow, mid := p.Interval(perDay(0.02)), p.Interval(perDay(0.1))
	if !(mid < slow) || mid < p.Min || slow > p.Max {
		t.Errorf("Interval(0.1/day) = %v, Interval(0.02/day) = %v: want the faster page sooner, both within bounds", mid, slow)
	}
	if got := (Policy{Min: time.Hour, Max: day}).Interval(perDay(1)); got != time.Hour {
		t.Errorf("Interval with mu 0 = %v, want Min", got)
	}
}

func TestSolveMu(t *testing.T) {
	var rates []float64
	for i := range 1000 {
		rates = append(rates, math.Pow(10, float64(i%300)/100)/86400/10) // 0.1 to 100 a day
	}
	budget := 150.0 / 86400 // 150 fetches a day
	mu := SolveMu(rates, budget, time.Hour, 30*24*time.Hour)
	p := Policy{Min: time.Hour, Max: 30 * 24 * time.Hour, Mu: mu}
	spent := 0.0
	for _, r := range rates {
		spent += 1 / p.Interval(r).Seconds()
	}
	if math.Abs(spent-budget)/budget > 0.02 {
		t.Errorf("SolveMu spends %.1f fetches a day, want %.1f", spent*86400, budget*86400)
	}
}
