package crawler

import (
	"math"
	"testing"
	"time"
)

func TestEstimateOfLastModified(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	// v is a fetch at t0+at of content sha, last modified at t0+mod.
	v := func(at time.Duration, sha string, mod time.Duration) Visit {
		return Visit{Time: t0.Add(at), SHA256: sha, LastModified: t0.Add(mod)}
	}
	for _, tc := range []struct {
		name   string
		visits []Visit
		dated  bool
		rate   float64 // changes a day
	}{
		// Quiet 1 day before the first fetch, 0.5 before the second
		// (changed at 1.5), 1 day up to the third: 2 changes in 2.5 days.
		{"dated", []Visit{v(2*day, "a", day), v(3*day, "b", 5*day/2), v(4*day, "b", 5*day/2)}, true, 0.8},
		// Cho's estimator would say ln 5 a day; the dates say 3 changes
		// in 3 hours (the content changed an hour before each fetch).
		{"changed an hour before every fetch", []Visit{v(day, "a", day-time.Hour), v(2*day, "b", 2*day-time.Hour), v(3*day, "c", 3*day-time.Hour)}, true, 24},
		// A server that sends the time of the request: the date says
		// changed, the content does not; Cho's estimator, 0 changes.
		{"date of the request", []Visit{v(0, "a", 0), v(day, "a", day), v(2*day, "a", 2*day)}, false, 0},
		// A date after the fetch counts as none: Cho's, X=1 n=2.
		{"date in the future", []Visit{v(0, "a", -day), v(day, "b", 3*day), v(2*day, "b", day/2)}, false, 0.5108},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := EstimateOf(tc.visits)
			if !ok {
				t.Fatalf("EstimateOf(%v) not ok", tc.visits)
			}
			if dated := e.Dated > e.Visits; dated != tc.dated {
				t.Errorf("EstimateOf = %+v: dated %v, want %v", e, dated, tc.dated)
			}
			r, ok := e.Rate(2)
			if got := r * 86400; !ok || math.Abs(got-tc.rate) > 1e-3 {
				t.Errorf("Rate = %.4f a day (ok %v), want %.4f; estimate %+v", got, ok, tc.rate, e)
			}
		})
	}
}

func TestObserveModified(t *testing.T) {
	day := 24 * time.Hour
	first, ok := FirstModified(2 * day)
	if !ok || first.Dated != 1 || first.DatedChanges != 1 || first.Quiet != 2*day {
		t.Fatalf("FirstModified(2 days) = %+v, %v; want one dated change after 2 days quiet", first, ok)
	}
	if _, ok := FirstModified(-time.Second); ok {
		t.Errorf("FirstModified(-1s) ok, want not: a date in the future")
	}
	if _, ok := first.Rate(2); ok {
		t.Errorf("Rate(2) of a first fetch alone is ok, want too few visits")
	}
	for _, tc := range []struct {
		name                string
		interval, age       time.Duration
		changed, ok, dated  bool
		quiet               time.Duration
		changes, datedCount int
	}{
		{"changed, dated", day, 6 * time.Hour, true, true, true, 2*day + 6*time.Hour, 2, 2},
		{"unchanged, dated", day, 3 * day, false, true, true, 3 * day, 1, 2},
		{"date says changed, content not", day, time.Hour, false, true, false, 2 * day, 1, 1},
		{"content changed, date old", day, 3 * day, true, true, false, 2 * day, 1, 1},
		{"negative age", day, -time.Hour, true, false, false, 2 * day, 1, 1},
		{"no interval", 0, time.Hour, true, false, false, 2 * day, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := first.ObserveModified(tc.interval, tc.age, tc.changed)
			if ok != tc.ok {
				t.Fatalf("ObserveModified ok = %v, want %v", ok, tc.ok)
			}
			if e.Quiet != tc.quiet || e.DatedChanges != tc.changes || e.Dated != tc.datedCount {
				t.Errorf("ObserveModified = %+v, want Quiet %v, DatedChanges %d, Dated %d", e, tc.quiet, tc.changes, tc.datedCount)
			}
			if _, dated := e.datedRate(2); dated != tc.dated {
				t.Errorf("dated rate ok = %v, want %v (%+v)", dated, tc.dated, e)
			}
		})
	}
}

func TestPolicyProbe(t *testing.T) {
	day := 24 * time.Hour
	start := 7 * day
	p := Policy{Min: time.Hour, Max: 30 * day, Mu: 86400, Probe: 0.1}
	changedEvery := func(n int) ChangeEstimate {
		var e ChangeEstimate
		for range n {
			e, _ = e.Observe(start, true)
		}
		return e
	}
	if got, want := p.Next(changedEvery(2), 2, start), 144*time.Minute; got != want {
		t.Errorf("Next(changed at both visits) = %v, want the probe, 0.1 Mu = %v", got, want)
	}
	probed, _ := changedEvery(2).Observe(144*time.Minute, true)
	if r, ok := p.RateOf(probed, 2); !ok || r != TooFast {
		t.Errorf("RateOf(changed at the probe too) = %v, %v; want TooFast", r, ok)
	}
	if got := p.Next(probed, 2, start); got != p.Max {
		t.Errorf("Next(changed at the probe too) = %v, want Max %v", got, p.Max)
	}
	calm, _ := changedEvery(2).Observe(144*time.Minute, false)
	if r, _ := p.RateOf(calm, 2); r == TooFast {
		t.Errorf("RateOf(unchanged at the probe) = TooFast, want its estimate")
	}
	if got, want := p.Next(calm, 2, start), p.Interval(mustRate(t, calm)); got != want {
		t.Errorf("Next(unchanged at the probe) = %v, want Interval(Rate) %v", got, want)
	}
	noProbe := Policy{Min: p.Min, Max: p.Max, Mu: p.Mu}
	if got, want := noProbe.Next(changedEvery(2), 2, start), noProbe.Interval(mustRate(t, changedEvery(2))); got != want {
		t.Errorf("Next without Probe = %v, want Interval(Rate) %v", got, want)
	}
	dated, _ := FirstModified(day)
	dated, _ = dated.ObserveModified(start, time.Hour, true)
	dated, _ = dated.ObserveModified(start, time.Hour, true)
	if got := p.Next(dated, 2, start); got == 144*time.Minute {
		t.Errorf("Next(dated page) = the probe, want none: its dates give its rate")
	}
	if got := p.Next(ChangeEstimate{}, 2, start); got != start {
		t.Errorf("Next(no visits) = %v, want start %v", got, start)
	}
}

func mustRate(t *testing.T, e ChangeEstimate) float64 {
	t.Helper()
	r, ok := e.Rate(2)
	if !ok {
		t.Fatalf("Rate(%+v) not ok", e)
	}
	return r
}
