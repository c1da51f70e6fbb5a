package crawler

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// RetryCause says why a fetch was tried again, for Stats.RetriesBy.
type RetryCause string

// The causes of retries.
const (
	RetryTooMany     RetryCause = "429"        // the server answered 429 Too Many Requests
	RetryServerError RetryCause = "5xx"        // the server answered 5xx
	RetryRobots      RetryCause = "robots.txt" // robots.txt answered 5xx or got no answer
	RetryOtherScheme RetryCause = "scheme"     // 502 or 504 MaxRetries times: the other scheme
)

// robotsUnavailable handles an entry whose origin's robots.txt could not be
// had. RFC 9309: that means "wait", not "fail". The entry is tried again
// after a doubling backoff of its origin while robots.txt has failed at
// most MaxRetries times in a row; then the origin is held back for the run
// (the entry moves to the other scheme, or is set aside). An origin held back by the robots.txt request itself (it got no
// answer) moves the entry at once.
func (r *run) robotsUnavailable(e entry, u *url.URL, host string, err error) {
	if r.sched.heldOrigin(u.Scheme, host) {
		r.sched.retry(host, e)
		return
	}
	if fails := r.c.rob.failures(u); fails <= MaxRetries {
		r.sched.pause(u.Scheme, host, min(r.c.retryBase<<(fails-1), MaxCrawlDelay))
		r.sched.retry(host, e)
		r.stats.retried(RetryRobots)
		return
	}
	// NB: a gateway error (502, 504) is what a proxy or a CDN answers
	// when it cannot reach the origin: the origin is unreachable, and its
	// pages may be had through the other scheme.
	reason := crawlstore.HoldUnreachable
	var se *robotsServerError
	if errors.As(err, &se) && se.status != http.StatusBadGateway && se.status != http.StatusGatewayTimeout {
		reason = crawlstore.HoldRobots
	}
	// NB: the reason says "robots.txt unavailable" already.
	detail := strings.TrimPrefix(errText(err), errRobotsUnavailable.Error()+": ")
	if r.sched.hold(u.Scheme, host, reason, detail, farFuture) {
		r.logOrigin(u.Scheme+"://"+host, reason, detail, time.Time{})
	}
	r.sched.retry(host, e)
}

// unreachable handles a fetch of e that got no response: when its own
// origin is now held back (this failure, or others before it), the entry
// goes back to the scheduler, which moves it to the other scheme or sets
// it aside, and unreachable returns true; otherwise the fetch is recorded
// as failed as it is (a redirect hop's origin, or a failure not yet
// enough to hold the origin back).
func (r *run) unreachable(e entry, u *url.URL, host string, err error) bool {
	fu := failedOrigin(err)
	if fu == nil || fu.Scheme != u.Scheme || serverKey(fu.Scheme, fu.Host) != host {
		return false
	}
	if !r.sched.heldOrigin(u.Scheme, host) {
		return false
	}
	r.sched.retry(host, e)
	return true
}

// otherScheme tries e once through the host's other scheme after its own
// answered a gateway error (502, 504: what a proxy or a CDN answers when
// it cannot reach the origin) MaxRetries times, when e's URL has no port
// and the other origin answered in this run: the row holds the page
// whatever the scheme. It reports whether e was queued again.
func (r *run) otherScheme(e entry, host string, u *url.URL, p *crawlstore.Page, capt *capture) bool {
	if e.swapped || capt.hops != 1 || hasPort(host) || (p.Status != http.StatusBadGateway && p.Status != http.StatusGatewayTimeout) {
		return false
	}
	if !r.sched.works(schemeNames[1-schemeIndex(u.Scheme)], host) {
		return false
	}
	e.URL, e.tries, e.swapped = otherSchemeURL(e.URL), 0, true
	r.sched.retry(host, e)
	r.stats.retried(RetryOtherScheme)
	return true
}

// requestFailed is the transport's report of a request that got no
// response: counted by kind, and the origin named once when the failure
// held it back.
func (r *run) requestFailed(origin string, k FailureKind, reason crawlstore.HoldReason, fresh bool, err error) {
	r.stats.failure(k)
	if fresh {
		r.logOrigin(origin, reason, errText(err), time.Time{})
	}
}

// logOrigin names an origin held back, once per run.
func (r *run) logOrigin(origin string, reason crawlstore.HoldReason, detail string, until time.Time) {
	if r.c.cfg.Log == nil {
		return
	}
	what := "its pages stay queued for a later run"
	if fallback(reason) {
		scheme, host, _ := cutOrigin(origin)
		other := "https"
		if scheme == "https" {
			other = "http"
		}
		if !hasPort(host) {
			what = fmt.Sprintf("its pages are fetched through %s://%s where that works; the rest stay queued", other, host)
		}
	}
	when := "for this run"
	if !until.IsZero() {
		when = "until " + until.Format(time.RFC3339)
	}
	r.c.cfg.Log(fmt.Sprintf("holding back %s %s: %s (%s); %s", origin, when, reason, detail, what))
}
