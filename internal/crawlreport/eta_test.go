package crawlreport

import (
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
)

// TestETAWithin: a crawl bounded by --budget shows the time its queue
// takes at the rate so far or the budget's, whichever is slower; with
// --max-pages too, the pages left at that rate; unbounded, none.
func TestETAWithin(t *testing.T) {
	s := crawler.Stats{Fetched: 100, Queued: 50, Elapsed: 10 * time.Second}
	const line = "fetched 100, queued 50, errors 0, 10.0 pages/s"
	for _, tc := range []struct {
		max    int
		budget crawler.Budget
		want   string
	}{
		{0, crawler.Budget{}, line},
		{400, crawler.Budget{}, line + ", ETA 30s"},
		{0, crawler.Budget{N: 60, Per: time.Minute}, line + ", ETA 50s"},    // 1 a second
		{0, crawler.Budget{N: 3600, Per: time.Minute}, line + ", ETA 5s"},   // the rate so far is slower
		{400, crawler.Budget{N: 60, Per: time.Minute}, line + ", ETA 5m0s"}, // 300 pages at 1 a second
	} {
		if got := ETAWithin(s, tc.max, tc.budget); got != tc.want {
			t.Errorf("ETAWithin(%+v, %d, %v) = %q, want %q", s, tc.max, tc.budget, got, tc.want)
		}
	}
}
