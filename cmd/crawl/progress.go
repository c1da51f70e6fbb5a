package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/crawlreport"
	"github.com/webtable/webtable/internal/termbar"
)

// progress shows a crawl as it goes: a bar on a terminal, a plain line
// every few seconds otherwise, and a summary at the end.
type progress struct {
	w     io.Writer
	label string
	bar   *termbar.Bar // nil when w is not a terminal
	every time.Duration
	last  time.Time
	max   int // --max-pages of the run: a bound, so an ETA (0: none)
	// budget is --budget: a bound on the rate, so an ETA of the queue
	budget crawler.Budget
}

// plainEvery is how often plain progress lines are written.
const plainEvery = 5 * time.Second

func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, label: label, bar: termbar.NewSpinner(w, label+"starting"), every: plainEvery, last: time.Now()}
}

// status is the one-line state of a crawl.
func status(s crawler.Stats) string {
	return fmt.Sprintf("fetched %d, queued %d, errors %d, %.1f pages/s", s.Fetched, s.Queued, s.Errors, s.PagesPerSecond())
}

// eta is status with, for a bounded crawl, the time left: to max pages
// (max > 0) at the rate so far, or, with a budget (b.N > 0), to the end of
// the queue at the rate so far or the budget's, whichever is slower:
// "..., ETA 4m10s".
func eta(s crawler.Stats, max int, b crawler.Budget) string {
	line := status(s)
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

// update is the crawler's Progress callback (never called concurrently).
func (p *progress) update(s crawler.Stats) {
	if s.Done {
		return
	}
	if p.bar != nil {
		p.bar.Describe(p.label + eta(s, p.max, p.budget))
		p.bar.Set64(s.Fetched)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last = now
		fmt.Fprintf(p.w, "%s%s\n", p.label, eta(s, p.max, p.budget))
	}
}

// finish clears the bar and prints the summary.
func (p *progress) finish(s crawler.Stats) {
	if p.bar != nil {
		p.bar.Finish()
	}
	fmt.Fprint(p.w, summary(p.label, s))
}

// summary is the closing report of a crawl.
func summary(label string, s crawler.Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%scrawled %d pages in %s (%.1f pages/s)\n", label, s.Fetched, s.Elapsed.Round(time.Millisecond), s.PagesPerSecond())
	fmt.Fprintf(&b, "  new versions  %d\n", s.NewVersions)
	fmt.Fprintf(&b, "  unchanged     %d\n", s.Unchanged)
	fmt.Fprintf(&b, "  errors        %d", s.Errors)
	if len(s.ErrorsByKind) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(s.ErrorsByKind)) {
			parts = append(parts, fmt.Sprintf("%s %d", crawlreport.KindLabel(k), s.ErrorsByKind[k]))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\n  bytes         %s\n", humanize.IBytes(uint64(max(s.Bytes, 0))))
	if s.Redirects > 0 {
		fmt.Fprintf(&b, "  redirects     %d\n", s.Redirects)
	}
	if s.Retries > 0 {
		fmt.Fprintf(&b, "  retries       %d (%s)\n", s.Retries, crawlreport.Counts(s.RetriesBy, crawlreport.RetryLabel))
	}
	if n := crawlreport.Sum(s.Failures); n > 0 {
		fmt.Fprintf(&b, "  no response   %d requests (%s)\n", n, crawlreport.Counts(s.Failures, crawlreport.FailureLabel))
	}
	if s.Traps > 0 {
		fmt.Fprintf(&b, "  traps         %d links refused (too long, or a path repeating itself)\n", s.Traps)
	}
	if sm := s.Sitemaps; sm.Files > 0 || sm.Bad > 0 {
		fmt.Fprintf(&b, "  sitemaps      %d read, %d URLs listed (%d new)", sm.Files, sm.Listed, sm.New)
		if sm.Bad > 0 || sm.Outside > 0 || sm.Skipped > 0 || sm.Cut > 0 {
			fmt.Fprintf(&b, "; %d unreadable (named above), %d URLs off their host, %d past 50,000 a file, %d files cut at 50 MB", sm.Bad, sm.Outside, sm.Skipped, sm.Cut)
		}
		b.WriteString("\n")
	}
	if s.BadEntries > 0 {
		fmt.Fprintf(&b, "  skipped       %d frontier entries that cannot be read (named above)\n", s.BadEntries)
	}
	if s.MaxPagesReached {
		fmt.Fprintf(&b, "  max pages     reached: more pages are queued (run again to continue)\n")
	} else if s.Queued > 0 {
		fmt.Fprintf(&b, "  still queued  %d (run again to continue)\n", s.Queued)
	}
	crawlreport.HeldBack(&b, s.HeldBack)
	return b.String()
}
