package crawlstore

import "time"

// HoldReason says why entries were left queued.
type HoldReason string

// The reasons entries are left queued (held back) at the end of a run.
const (
	// HoldUnreachable: the origin could not be reached (see
	// crawler.MaxOriginFailures); the next run tries it again. Its pages are
	// fetched through the host's other scheme where that origin works
	// (the row key of http://h/p and https://h/p is one).
	HoldUnreachable HoldReason = "unreachable"
	// HoldRobots: the origin's robots.txt answered 5xx crawler.MaxRetries times;
	// RFC 9309 says to wait, so its pages wait for a later run.
	HoldRobots HoldReason = "robots.txt unavailable"
	// HoldRetryAfter: the server asked (Retry-After) for a pause longer
	// than crawler.MaxCrawlDelay; HeldBack.Until says until when.
	HoldRetryAfter HoldReason = "server asked to wait"
	// HoldHostFull: the host has its crawler.Config.MaxPagesPerHost pages.
	HoldHostFull HoldReason = "max pages per host"
	// HoldPrivate: the origin's address is private and
	// crawler.Config.AllowPrivate is off.
	HoldPrivate HoldReason = "private address"
	// HoldDomain: the host is outside the run's allowed domains (queued by
	// an earlier run with other seeds or --allow-domain).
	HoldDomain HoldReason = "outside the allowed domains"
)

// HeldBack counts the entries of one origin that a run left queued on
// purpose, and says why and until when.
type HeldBack struct {
	// Origin is "scheme://host[:port]".
	Origin string
	// Reason says why; Detail gives the last error seen ("proxy refused
	// CONNECT: 403 Forbidden"), "" when there is none.
	Reason HoldReason
	Detail string
	// Until is when the origin may be tried again; zero means by the next
	// run, at once.
	Until time.Time
	// Entries counts the frontier entries left queued in this run.
	Entries int64
}
