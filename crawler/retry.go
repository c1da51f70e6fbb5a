package crawler

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// retry decides whether a fetch answered with 429 or a 5xx is tried again
// in this run (at most MaxRetries times). If so it pauses the host for the
// server's Retry-After or an exponential backoff from retryBase (capped at
// MaxCrawlDelay), queues the entry again and returns true. A Retry-After
// beyond MaxCrawlDelay is honoured by leaving the host alone until then
// (scheduler.giveUp): the page is recorded as failed, the host's other
// entries stay queued.
func (r *run) retry(e entry, host string, u *url.URL, p *crawlstore.Page, capt *capture) bool {
	if p.Status != http.StatusTooManyRequests && p.Status < 500 {
		return false
	}
	n := e.tries
	if n >= MaxRetries {
		return r.otherScheme(e, host, u, p, capt)
	}
	e.tries++
	final := u
	if capt.resp.Request != nil && capt.resp.Request.URL != nil {
		final = capt.resp.Request.URL
	}
	wait := r.c.retryBase << n
	if ra, ok := retryAfter(capt.resp.Header.Get("Retry-After"), time.Now()); ok {
		if ra > MaxCrawlDelay {
			// Honour the server without waiting longer than the cap: no
			// more requests to the host until then, in this run or a
			// later run of this Crawler; its entries stay queued in the
			// store.
			p.Err += fmt.Sprintf(" (Retry-After %v is beyond %v: origin left for a later run)", ra, MaxCrawlDelay)
			detail := fmt.Sprintf("%d with Retry-After %v", p.Status, ra.Round(time.Second))
			fh := serverKey(final.Scheme, final.Host)
			until := time.Now().Add(ra)
			if r.sched.hold(final.Scheme, fh, crawlstore.HoldRetryAfter, detail, until) {
				r.logOrigin(final.Scheme+"://"+fh, crawlstore.HoldRetryAfter, detail, until)
			}
			return false
		}
		wait = ra
	}
	wait = min(wait, MaxCrawlDelay)
	r.sched.pause(final.Scheme, serverKey(final.Scheme, final.Host), wait)
	r.sched.retry(host, e)
	cause := RetryServerError
	if p.Status == http.StatusTooManyRequests {
		cause = RetryTooMany
	}
	r.stats.retried(cause)
	return true
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
// Delays beyond a day are reported as a day.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	const day = 24 * time.Hour
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(day/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), day), true
	}
	return 0, false
}
