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
		// (changed at 1.5), 1 day up to the third: 2 changes in 2.5 days,
		// (2-1)/2.5.
		{"dated", []Visit{v(2*day, "a", day), v(3*day, "b", 5*day/2), v(4*day, "b", 5*day/2)}, true, 0.4},
		// Cho's estimator would say ln 5 a day; the dates say 3 changes
		// in 3 hours (the content changed an hour before each fetch):
		// (3-1)/3h.
		{"changed an hour before every fetch", []Visit{v(day, "a", day-time.Hour), v(2*day, "b", 2*day-time.Hour), v(3*day, "c", 3*day-time.Hour)}, true, 16},
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
