package crawlreport

import (
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
)

// TestETA: a crawl bounded by --max-pages shows the time left at its rate.
func TestETA(t *testing.T) {
	s := crawler.Stats{Fetched: 100, Elapsed: 10 * time.Second}
	for _, tc := range []struct {
		max  int
		want string
	}{
		{0, "fetched 100, queued 0, errors 0, 10.0 pages/s"},
		{400, "fetched 100, queued 0, errors 0, 10.0 pages/s, ETA 30s"},
		{100, "fetched 100, queued 0, errors 0, 10.0 pages/s"},
	} {
		if got := ETA(s, tc.max); got != tc.want {
			t.Errorf("ETA(%+v, %d) = %q, want %q", s, tc.max, got, tc.want)
		}
	}
}
