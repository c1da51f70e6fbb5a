package crawler

import "net/url"

// admission is admit's answer for a URL met in a run.
type admission int

const (
	admitted      admission = iota // queue it: this crawler fetches it
	otherShard                     // queue it for the shard that owns its host; never fetched here
	refusedTrap                    // a crawler trap: not followed, counted
	refusedDomain                  // outside the allowed domains: not followed
)

// admit is the one place that decides, from a canonical URL alone (u, and
// s its String()), whether a URL met in a run is followed: a link to
// queue, a redirect to follow, an unfollowed redirect's Location. A trap
// (too long, a path segment repeated, see isTrap) is refused first, then a
// host outside domains; a host of another shard is queued for it.
//
// What admit cannot know is decided later, each in one place: whether the
// URL was seen (the store: SavePage and Enqueue queue only what it does
// not know, and the worker asks LastFetch before fetching), whether a
// pattern chain runs too long (links, which knows the page's chain), and
// whether its host may be fetched now (robots.txt, MaxPagesPerHost, a
// server's pause: process, just before the fetch).
func (c *Crawler) admit(u *url.URL, s string, domains []string) admission {
	switch {
	case isTrap(u, s):
		return refusedTrap
	case !domainAllowed(u.Hostname(), domains):
		return refusedDomain
	case !c.mine(u.Host):
		return otherShard
	}
	return admitted
}
