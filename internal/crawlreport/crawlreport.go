// Package crawlreport writes a crawl's figures for people: the names of
// its error kinds, retry causes and failures, counts by key, and the list
// of the pages a run left queued on purpose. crawl prints its summary with
// them.
package crawlreport

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
)

// HeldBack writes to b the lines that list the entries a run left queued
// on purpose, by origin, with the reason and when they may be tried again:
// the last lines of a crawl that did not fetch everything it knows of.
// It writes nothing when held is empty.
func HeldBack(b *strings.Builder, held []crawlstore.HeldBack) {
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

// Counts writes a count per key, largest first: "429 2, 5xx 3".
func Counts[K ~string](m map[K]int64, label func(K) string) string {
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

// Sum is the sum of the counts of m.
func Sum[K comparable](m map[K]int64) int64 {
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

// RetryLabel names a retry cause for people.
func RetryLabel(c crawler.RetryCause) string { return cmp.Or(retryLabels[c], string(c)) }

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

// FailureLabel names a kind of request failure for people.
func FailureLabel(k crawler.FailureKind) string { return cmp.Or(failureLabels[k], string(k)) }

// KindLabel names an error kind for people.
func KindLabel(k crawlstore.ErrorKind) string {
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
