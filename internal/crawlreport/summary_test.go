package crawlreport

import (
	"strings"
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

// TestProgressLines: off a terminal, a round's line is written at once,
// after the label, and Finish writes the summary; the figures of a crawl
// done are not written as progress.
func TestProgressLines(t *testing.T) {
	var buf strings.Builder
	p := NewProgress(&buf, "shard 1/2: ", 0)
	s := crawler.Stats{Fetched: 100, Elapsed: 10 * time.Second}
	p.Update(crawler.Stats{Done: true})
	p.Round(2, s)
	p.Finish(s)
	want := "shard 1/2: round 2: fetched 100, queued 0, errors 0, 10.0 pages/s\n" + Summary("shard 1/2: ", s)
	if got := buf.String(); got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
}

// TestSummarySitemapsUnchanged: a continuous crawl's sitemaps read again
// and found unchanged (304) are counted in the summary, also when no file
// was read in full.
func TestSummarySitemapsUnchanged(t *testing.T) {
	s := crawler.Stats{Fetched: 3}
	s.Sitemaps.Unchanged = 4
	if got, want := Summary("", s), "sitemaps      0 read, 0 URLs listed (0 new), 4 read again unchanged (304)\n"; !strings.Contains(got, want) {
		t.Errorf("summary\n%s\nwant a line %q", got, want)
	}
}
