package crawler

import (
	"context"
	"fmt"
	"net/http"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// checkRedirect vets each redirect hop (colly calls it through
// SetRedirectHandler): at most MaxRedirects, http and https only, no loop
// back to a URL of the chain, a canonical URL within the allowed domains
// and not a trap, of this crawler's shard, allowed by robots.txt, and not
// met before in this run. It strips user info, Authorization and Cookie
// from every hop.
func (c *Crawler) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", MaxRedirects)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &redirectError{fmt.Sprintf("redirect to a %s: URL", req.URL.Scheme)}
	}
	// NB: net/http would turn user info in a Location into an
	// Authorization header for the next host. Never send credentials.
	req.URL.User = nil
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	u, err := urlkey.Canonical(req.URL.String())
	if err != nil {
		return &redirectError{fmt.Sprintf("redirect to a bad URL: %v", err)}
	}
	for _, v := range via {
		if v.URL.String() == req.URL.String() {
			return &redirectError{fmt.Sprintf("redirect loop back to %s", u)}
		}
	}
	c.domainsMu.RLock()
	domains := c.domains
	c.domainsMu.RUnlock()
	switch c.admit(u, u.String(), domains) {
	case refusedTrap:
		return &redirectError{"redirect to a crawler trap"}
	case refusedDomain:
		return &redirectError{fmt.Sprintf("redirect to %s, outside the allowed domains", u.Hostname())}
	case otherShard:
		// Another shard's host: not fetched (nor its robots.txt) here. The
		// 3xx is recorded with its Location, queued for that shard.
		return http.ErrUseLastResponse
	}
	if !c.cfg.IgnoreRobots {
		if err := c.rob.allowed(req.Context(), u); err != nil {
			return &redirectError{fmt.Sprintf("redirect to %s: %v", u, err)}
		}
	}
	// At most one fetch per URL per crawl: a target already met (fetched or
	// queued) is not fetched through the redirect; the 3xx is recorded with
	// its Location. A target with the requested URL's key (http -> https)
	// is the same page and always followed.
	if orig, err := urlkey.Canonical(via[0].URL.String()); err != nil || frontierKey(orig) != frontierKey(u) {
		key := urlkey.KeyOf(u)
		// Not a target another worker is fetching now (its entry, or a
		// redirect to it)...
		if !c.sched.claim(req.Header.Get(fetchIDHeader), c.tr, u.Host, key) {
			return http.ErrUseLastResponse
		}
		// ...nor one the store says was fetched in this run, or done
		// before it unless recrawling. A store error only costs a fetch.
		c.domainsMu.RLock()
		start := c.runStart
		c.domainsMu.RUnlock()
		if f, ok, err := c.store.LastFetch(context.WithoutCancel(req.Context()), key); err == nil && ok {
			if (f.State == crawlstore.StateDone && (!c.refetches() || !f.Time.Before(start))) || (f.State == crawlstore.StateFailed && !f.Time.Before(start)) {
				return http.ErrUseLastResponse
			}
		}
	}
	return nil
}

// redirectError is a redirect hop refused by checkRedirect.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return "crawler: " + e.msg }
