package crawler

import (
	"testing"
	"time"
)

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
