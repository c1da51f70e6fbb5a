package crawlreport

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/webtable/webtable/crawler"
)

// Status is the one-line state of a crawl:
// "fetched 100, queued 3, errors 0, 10.0 pages/s".
func Status(s crawler.Stats) string {
	return fmt.Sprintf("fetched %d, queued %d, errors %d, %.1f pages/s", s.Fetched, s.Queued, s.Errors, s.PagesPerSecond())
}

// ETA is Status with, for a crawl bounded by max pages (max > 0), the
// time left at the rate so far: "..., ETA 4m10s".
func ETA(s crawler.Stats, max int) string { return ETAWithin(s, max, crawler.Budget{}) }

// ETAWithin is ETA for a crawl bounded by max pages, a budget (b.N > 0:
// --budget), or both: the time left to max pages, or without max to the
// end of the queue, at the rate so far or the budget's, whichever is
// slower.
func ETAWithin(s crawler.Stats, max int, b crawler.Budget) string {
	line := Status(s)
	rate := s.PagesPerSecond()
	if b.N > 0 && b.Per > 0 {
		rate = min(rate, float64(b.N)/b.Per.Seconds())
	}
	left := int64(0)
	switch {
	case max > 0:
		left = int64(max) - s.Fetched
	case b.N > 0:
		left = s.Queued
	}
	if rate > 0 && left > 0 {
		line += ", ETA " + time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second).String()
	}
	return line
}

// Summary is the closing report of a crawl, a line a figure, the first
// after label (e.g. "pass 1/3: "; "" for none).
func Summary(label string, s crawler.Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%scrawled %d pages in %s (%.1f pages/s)\n", label, s.Fetched, s.Elapsed.Round(time.Millisecond), s.PagesPerSecond())
	fmt.Fprintf(&b, "  new versions  %d\n", s.NewVersions)
	fmt.Fprintf(&b, "  unchanged     %d\n", s.Unchanged)
	fmt.Fprintf(&b, "  errors        %d", s.Errors)
	if len(s.ErrorsByKind) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(s.ErrorsByKind)) {
			parts = append(parts, fmt.Sprintf("%s %d", KindLabel(k), s.ErrorsByKind[k]))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\n  bytes         %s\n", humanize.IBytes(uint64(max(s.Bytes, 0))))
	if s.Redirects > 0 {
		fmt.Fprintf(&b, "  redirects     %d\n", s.Redirects)
	}
	if s.Retries > 0 {
		fmt.Fprintf(&b, "  retries       %d (%s)\n", s.Retries, Counts(s.RetriesBy, RetryLabel))
	}
	if n := Sum(s.Failures); n > 0 {
		fmt.Fprintf(&b, "  no response   %d requests (%s)\n", n, Counts(s.Failures, FailureLabel))
	}
	if s.Traps > 0 {
		fmt.Fprintf(&b, "  traps         %d links refused (too long, or a path repeating itself)\n", s.Traps)
	}
	sitemaps(&b, s.Sitemaps)
	if s.BadEntries > 0 {
		fmt.Fprintf(&b, "  skipped       %d frontier entries that cannot be read (named above)\n", s.BadEntries)
	}
	if s.MaxPagesReached {
		fmt.Fprintf(&b, "  max pages     reached: more pages are queued (run again to continue)\n")
	} else if s.Queued > 0 {
		fmt.Fprintf(&b, "  still queued  %d (run again to continue)\n", s.Queued)
	}
	HeldBack(&b, s.HeldBack)
	return b.String()
}

// sitemaps writes the summary's line of the sitemaps read, if any.
func sitemaps(b *strings.Builder, sm crawler.SitemapStats) {
	if sm.Files == 0 && sm.Bad == 0 && sm.Unchanged == 0 {
		return
	}
	fmt.Fprintf(b, "  sitemaps      %d read, %d URLs listed (%d new)", sm.Files, sm.Listed, sm.New)
	if sm.Unchanged > 0 {
		fmt.Fprintf(b, ", %d read again unchanged (304)", sm.Unchanged)
	}
	if sm.Bad > 0 || sm.Outside > 0 || sm.Skipped > 0 || sm.Cut > 0 {
		fmt.Fprintf(b, "; %d unreadable (named above), %d URLs off their host, %d past 50,000 a file, %d files cut at 50 MB", sm.Bad, sm.Outside, sm.Skipped, sm.Cut)
	}
	b.WriteString("\n")
}
