package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// gauges scrapes m and returns its gauges by name and labels
// ("name,label=value").
func gauges(t *testing.T, m *Crawl) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("parsing the metrics: %v\n%s", err, rec.Body.String())
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, mm := range f.Metric {
			key := name
			for _, l := range mm.Label {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			if mm.Gauge != nil {
				out[key] = mm.Gauge.GetValue()
			}
		}
	}
	return out
}

// TestStoreFigures: the stored frontier and the due pages are the store's
// counts, counted again only once they are 30 s old, and absent without
// a store or before a count succeeds.
func TestStoreFigures(t *testing.T) {
	m := New()
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	m.stored.now = func() time.Time { return now }
	if _, ok := gauges(t, m)["webtable_crawl_due_entries"]; ok {
		t.Errorf("due pages served without a store")
	}
	counts, asked := 0, time.Time{}
	fail := true
	m.SetStore(func(_ context.Context, at time.Time) (StoreFigures, error) {
		counts++
		asked = at
		if fail {
			return StoreFigures{}, errors.New("store gone")
		}
		return StoreFigures{Frontier: 40 + int64(counts), Due: 12, DueNow: 3, DueDay: 7}, nil
	})
	if _, ok := gauges(t, m)["webtable_crawl_due_entries"]; ok {
		t.Errorf("due pages served after a failed count")
	}
	fail = false
	now = now.Add(storeEvery)
	got := gauges(t, m)
	want := map[string]float64{
		"webtable_crawl_stored_frontier_entries": 42,
		"webtable_crawl_due_entries":             12,
		"webtable_crawl_due_pages,when=now":      3,
		"webtable_crawl_due_pages,when=day":      7,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if !asked.Equal(now) {
		t.Errorf("counted at %v, want the scrape's time %v", asked, now)
	}
	now = now.Add(storeEvery - time.Second)
	if got := gauges(t, m)["webtable_crawl_stored_frontier_entries"]; got != 42 || counts != 2 {
		t.Errorf("a scrape %v after the count: frontier %v after %d counts, want the last count (42) and no new one", storeEvery-time.Second, got, counts)
	}
	now = now.Add(time.Second)
	if got := gauges(t, m)["webtable_crawl_stored_frontier_entries"]; got != 43 {
		t.Errorf("a scrape %v after the count: frontier %v, want a new count (43)", storeEvery, got)
	}
}
