package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/schollz/progressbar/v3"
	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
)

// progress shows a crawl as it goes: a bar on a terminal, a plain line
// every few seconds otherwise, and a summary at the end.
type progress struct {
	w     io.Writer
	label string
	bar   *progressbar.ProgressBar // nil when w is not a terminal
	every time.Duration
	last  time.Time
	max   int // --max-pages of the run: a bound, so an ETA (0: none)
}

// plainEvery is how often plain progress lines are written.
const plainEvery = 5 * time.Second

func newProgress(w io.Writer, label string) *progress {
	p := &progress{w: w, label: label, every: plainEvery, last: time.Now()}
	if isTerminal(w) {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label+"starting"),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionSetWidth(10),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// status is the one-line state of a crawl.
func status(s crawler.Stats) string {
	return fmt.Sprintf("fetched %d, queued %d, errors %d, %.1f pages/s", s.Fetched, s.Queued, s.Errors, s.PagesPerSecond())
}

// eta is status with, for a crawl bounded by max pages (max > 0), the time
// left at the rate so far: "..., ETA 4m10s".
func eta(s crawler.Stats, max int) string {
	line := status(s)
	if rate := s.PagesPerSecond(); max > 0 && rate > 0 && s.Fetched < int64(max) {
		left := time.Duration(float64(int64(max)-s.Fetched) / rate * float64(time.Second))
		line += ", ETA " + left.Round(time.Second).String()
	}
	return line
}

// update is the crawler's Progress callback (never called concurrently).
func (p *progress) update(s crawler.Stats) {
	if s.Done {
		return
	}
	if p.bar != nil {
		p.bar.Describe(p.label + eta(s, p.max))
		p.bar.Set64(s.Fetched)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last = now
		fmt.Fprintf(p.w, "%s%s\n", p.label, eta(s, p.max))
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
			parts = append(parts, fmt.Sprintf("%s %d", kindLabel(k), s.ErrorsByKind[k]))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\n  bytes         %s\n", humanize.IBytes(uint64(max(s.Bytes, 0))))
	if s.Redirects > 0 {
		fmt.Fprintf(&b, "  redirects     %d\n", s.Redirects)
	}
	if s.Retries > 0 {
		fmt.Fprintf(&b, "  retries       %d (%s)\n", s.Retries, counts(s.RetriesBy, retryLabel))
	}
	if n := sum(s.Failures); n > 0 {
		fmt.Fprintf(&b, "  no response   %d requests (%s)\n", n, counts(s.Failures, failureLabel))
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
	heldBack(&b, s.HeldBack)
	return b.String()
}

// heldBack lists the entries a run left queued on purpose, by origin, with
// the reason and when they may be tried again: the last lines of a crawl
// that did not fetch everything it knows of.
func heldBack(b *strings.Builder, held []crawlstore.HeldBack) {
	if len(held) == 0 {
		return
	}
	var n int64
	width := 0
	for _, h := range held {
		n += h.Entries
		width = max(width, len(h.Origin))
	}
	fmt.Fprintf(b, "  left queued   %d pages on purpose, by origin (\"query stats --by-origin\" lists them again):\n", n)
	for _, h := range held {
		why := string(h.Reason)
		if h.Detail != "" {
			why += ": " + h.Detail
		}
		when := "run the crawl again to try them"
		if !h.Until.IsZero() {
			when = "tried again after " + h.Until.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(b, "    %-*s %7d  %s; %s\n", width, h.Origin, h.Entries, why, when)
	}
}

// counts writes a count per key, largest first: "429 2, 5xx 3".
func counts[K ~string](m map[K]int64, label func(K) string) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b K) int {
		if m[a] != m[b] {
			return int(m[b] - m[a])
		}
		return strings.Compare(string(a), string(b))
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", label(k), m[k]))
	}
	return strings.Join(parts, ", ")
}

func sum[K comparable](m map[K]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// retryLabels name the causes of retries for people.
var retryLabels = map[crawler.RetryCause]string{
	crawler.RetryTooMany:     "after 429",
	crawler.RetryServerError: "after 5xx",
	crawler.RetryRobots:      "robots.txt unavailable",
	crawler.RetryOtherScheme: "through the other scheme after 502/504",
}

// retryLabel names a retry cause for people.
func retryLabel(c crawler.RetryCause) string { return cmp.Or(retryLabels[c], string(c)) }

// failureLabels name the kinds of requests without a response for people.
var failureLabels = map[crawler.FailureKind]string{
	crawler.FailDNS:      "unknown host",
	crawler.FailRefused:  "connection refused",
	crawler.FailConnect:  "proxy refused CONNECT",
	crawler.FailTLS:      "TLS failure",
	crawler.FailReset:    "connection reset",
	crawler.FailTimeout:  "timeout",
	crawler.FailProxy:    "proxy unreachable",
	crawler.FailPrivate:  "private address refused",
	crawler.FailTransfer: "other",
}

// failureLabel names a kind of request failure for people.
func failureLabel(k crawler.FailureKind) string { return cmp.Or(failureLabels[k], string(k)) }

// kindLabel names an error kind for people.
func kindLabel(k crawlstore.ErrorKind) string {
	switch k {
	case crawlstore.KindHTTP:
		return "HTTP error status"
	case crawlstore.KindRobots:
		return "disallowed by robots.txt"
	case crawlstore.KindRedirect:
		return "bad redirect"
	case crawlstore.KindBody:
		return "unreadable body"
	}
	return string(k)
}
