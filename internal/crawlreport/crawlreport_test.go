package crawlreport

import (
	"strings"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
)

func TestCounts(t *testing.T) {
	m := map[crawler.RetryCause]int64{crawler.RetryServerError: 3, crawler.RetryTooMany: 2, "odd": 3}
	// Largest first; a tie in name order; an unknown cause by its own name.
	want := "after 5xx 3, odd 3, after 429 2"
	if got := Counts(m, RetryLabel); got != want {
		t.Errorf("Counts(%v) = %q, want %q", m, got, want)
	}
	if got := Sum(m); got != 8 {
		t.Errorf("Sum(%v) = %d, want 8", m, got)
	}
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FailureLabel(crawler.FailDNS), "unknown host"},
		{FailureLabel("new-kind"), "new-kind"},
		{KindLabel(crawlstore.KindRobots), "disallowed by robots.txt"},
		{KindLabel("new-kind"), "new-kind"},
		{RetryLabel(crawler.RetryRobots), "robots.txt unavailable"},
	} {
		if tc.got != tc.want {
			t.Errorf("label %q, want %q", tc.got, tc.want)
		}
	}
}

func TestHeldBack(t *testing.T) {
	var b strings.Builder
	HeldBack(&b, nil)
	if b.Len() != 0 {
		t.Fatalf("HeldBack(nil) wrote %q, want nothing", b.String())
	}
	HeldBack(&b, []crawlstore.HeldBack{
		{Origin: "http://a.example", Entries: 2, Reason: crawlstore.HoldUnreachable, Detail: "connection refused"},
		{Origin: "https://long.example", Entries: 5, Reason: crawlstore.HoldHostFull},
	})
	want := `  left queued   7 pages on purpose, by origin ("query stats --by-origin" lists them again):
    http://a.example           2  unreachable: connection refused; run the crawl again to try them
    https://long.example       5  max pages per host; run the crawl again to try them
`
	if got := b.String(); got != want {
		t.Errorf("HeldBack wrote\n%s\nwant\n%s", got, want)
	}
}
