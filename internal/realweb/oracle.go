package realweb

import (
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
)

// oracleResult is what a correct crawl of the web reaches, computed once
// from the web's own description (never through HTTP).
type oracleResult struct {
	reachable   []string          // one URL per row key of a 200 page
	redirects   map[string]string // redirect URL -> Location
	disallowed  []string
	unreachable map[string]int
	viaFallback []string
	notFound    []string
}

// An oracle's walk keeps row keys as host[:port]/path[?query].
func keyOf(u *url.URL) string {
	if u.RawQuery != "" {
		return hostPort(u.Scheme, u.Host) + u.Path + "?" + u.RawQuery
	}
	return hostPort(u.Scheme, u.Host) + u.Path
}

// canonical parses and resolves ref against base (nil for an absolute
// URL) into scheme://host[:port]/path[?query], without fragment; ok is
// false for anything but http and https.
func canonical(base *url.URL, ref string) (*url.URL, bool) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, false
	}
	c := &url.URL{Scheme: u.Scheme, Host: hostPort(u.Scheme, u.Host), Path: u.Path, RawQuery: u.RawQuery}
	if c.Path == "" {
		c.Path = "/"
	}
	return c, true
}

// fetchable reports what a crawler gets for u: ok when the origin answers
// it; disallowed when robots.txt forbids it (robots.txt being found or a
// 404).
func (w *Web) fetchable(u *url.URL) (ok, disallowed bool) {
	switch w.behaviour(u.Scheme, u.Host) {
	case Serves:
		if !w.content.robots(u.Scheme, u.Host).allows(u.Path) {
			return false, true
		}
		return true, false
	}
	return false, false
}

// walk is a breadth-first walk of the web from its seeds. With fallback, a
// URL whose origin does not answer is tried by the other scheme (same
// host, port and path: the same row key), as a crawler that keys rows
// without the scheme should. content holds the row keys of the 200
// text/html pages reached, answered those of every URL an origin answered.
func (w *Web) walk(fallback bool, cache map[string][]*url.URL) (content map[string]bool, answered map[string]bool, res *oracleResult) {
	o := &oracleWalk{
		w: w, fallback: fallback, cache: cache, seen: map[string]bool{},
		content: map[string]bool{}, answered: map[string]bool{},
		deadLinked: map[string]map[string]bool{}, disallowed: map[string]bool{},
		res: &oracleResult{redirects: map[string]string{}},
	}
	for _, s := range w.content.seeds() {
		if u, ok := canonical(nil, s); ok {
			o.push(u, false)
		}
	}
	for len(o.queue) > 0 {
		it := o.queue[0]
		o.queue = o.queue[1:]
		o.visit(it)
	}
	o.finish()
	return o.content, o.answered, o.res
}

// oracleWalk is the state of one walk of the web (see [Web.walk]).
type oracleWalk struct {
	w        *Web
	fallback bool
	cache    map[string][]*url.URL // URL -> its links, where kept
	seen     map[string]bool       // URLs pushed
	queue    []walkItem
	// content and answered are walk's results; deadLinked maps an origin
	// that does not answer to the row keys linked through it.
	content, answered map[string]bool
	deadLinked        map[string]map[string]bool
	disallowed        map[string]bool
	res               *oracleResult
}

// walkItem is a URL to visit.
type walkItem struct {
	u        *url.URL
	fallback bool // not linked: tried by the other scheme
}

// push queues u, unless it was queued before or lies outside the web.
func (o *oracleWalk) push(u *url.URL, fb bool) {
	if s := u.String(); !o.seen[s] && o.w.inWeb(u.Host) {
		o.seen[s] = true
		o.queue = append(o.queue, walkItem{u, fb})
	}
}

// visit visits one URL: disallowed, not answered (then its row key is
// dead-linked, and with fallback the other scheme is queued), or
// answered.
func (o *oracleWalk) visit(it walkItem) {
	u := it.u
	ok, dis := o.w.fetchable(u)
	if dis {
		o.disallowed[u.String()] = true
		return
	}
	if !ok {
		if !it.fallback {
			origin := u.Scheme + "://" + u.Host
			if o.deadLinked[origin] == nil {
				o.deadLinked[origin] = map[string]bool{}
			}
			o.deadLinked[origin][keyOf(u)] = true
		}
		if o.fallback {
			other := *u
			other.Scheme = map[string]string{"http": "https", "https": "http"}[u.Scheme]
			o.push(&other, true)
		}
		return
	}
	o.answer(u)
}

// answer takes the origin's answer for u: a 200 page's links and a
// redirect's Location are queued, anything else is not found.
func (o *oracleWalk) answer(u *url.URL) {
	r := o.w.content.lookup(u.Scheme, u.Host, u.Path)
	o.answered[keyOf(u)] = true
	switch {
	case r.status == http.StatusOK:
		if strings.HasPrefix(r.ctype, "text/html") {
			o.content[keyOf(u)] = true
		}
		// NB: a generated page's links cost less to make again
		// than to keep (a web of 100,000 pages).
		links, ok := o.cache[u.String()]
		if !ok {
			links = o.w.linksOf(u, r)
			if r.links == nil {
				o.cache[u.String()] = links
			}
		}
		for _, l := range links {
			o.push(l, false)
		}
	case r.status >= 300 && r.status < 400:
		o.res.redirects[u.String()] = r.location
		if l, ok := canonical(u, r.location); ok {
			o.push(l, false)
		}
	default:
		o.res.notFound = append(o.res.notFound, u.String())
	}
}

// finish fills res from the walk: each dead-linked origin with its row
// keys that no scheme answered, and the disallowed and not found URLs,
// sorted.
func (o *oracleWalk) finish() {
	res := o.res
	res.unreachable = map[string]int{}
	for origin, keys := range o.deadLinked {
		n := 0
		for k := range keys {
			if !o.answered[k] {
				n++
			}
		}
		if n > 0 {
			res.unreachable[origin] = n
		}
	}
	for s := range o.disallowed {
		res.disallowed = append(res.disallowed, s)
	}
	sort.Strings(res.disallowed)
	sort.Strings(res.notFound)
}

// linksOf returns the links of a 200 answer for u, resolved.
func (w *Web) linksOf(u *url.URL, r response) []*url.URL {
	base := u
	hrefs := r.links
	if r.body != nil || r.file != "" {
		if !strings.HasPrefix(r.ctype, "text/html") {
			return nil
		}
		body := r.body
		if body == nil {
			b, err := os.ReadFile(r.file)
			if err != nil {
				return nil
			}
			body = b
		}
		pl := scanLinks(body)
		if pl.metaNoFollow {
			return nil
		}
		hrefs = pl.hrefs
		if pl.base != "" {
			if bu, err := url.Parse(pl.base); err == nil {
				base = u.ResolveReference(bu)
			}
		}
	}
	out := make([]*url.URL, 0, len(hrefs))
	for _, h := range hrefs {
		if l, ok := canonical(base, h); ok {
			out = append(out, l)
		}
	}
	return out
}

// compute runs the oracle once.
func (w *Web) compute() *oracleResult {
	w.oracleOnce.Do(func() { w.oracle = w.runOracle() })
	return w.oracle
}

// runOracle walks the web twice, with fallback and without.
func (w *Web) runOracle() *oracleResult {
	// NB: the walk without fallback only tells which pages need it;
	// it reads no file again.
	cache := map[string][]*url.URL{}
	content, _, res := w.walk(true, cache)
	plain, _, _ := w.walk(false, cache)
	for k := range content {
		if !plain[k] {
			res.viaFallback = append(res.viaFallback, w.urlOfKey(k))
		}
		res.reachable = append(res.reachable, w.urlOfKey(k))
	}
	sort.Strings(res.reachable)
	sort.Strings(res.viaFallback)
	return res
}

// urlOfKey returns the URL of a page's row key with the scheme it is
// reachable by: https when its https origin answers it 200, else http.
func (w *Web) urlOfKey(k string) string {
	hp, p, _ := strings.Cut(k, "/")
	p, q, _ := strings.Cut(p, "?")
	u := &url.URL{Scheme: "https", Host: hp, Path: "/" + p, RawQuery: q}
	if ok, _ := w.fetchable(u); ok && w.content.lookup("https", hp, u.Path).status == http.StatusOK {
		return u.String()
	}
	u.Scheme = "http"
	return u.String()
}

// Reachable returns every page a correct crawl from [Web.Seeds] must
// store: the pages (200 text/html) of the web reachable through links and
// redirects, one per row key (a page reachable by http and https counts
// once), as scheme://host[:port]/path with the scheme it is reachable by
// (https when its https origin serves it, else http), sorted.
//
// "Reachable" assumes a crawler that, when a URL's origin fails, tries the
// other scheme of the same row key ([Web.ReachableByFallbackOnly] lists the
// pages that need it), obeys robots.txt ([Web.Disallowed] are left out;
// robots.txt unreachable means complete disallow), and follows redirects.
// Redirect sources are not listed (see [Web.Redirects]). The result is
// computed once, from the web's description, not through HTTP.
func (w *Web) Reachable() []string { return append([]string(nil), w.compute().reachable...) }

// ReachableByFallbackOnly returns the pages of [Web.Reachable] that a
// crawler reaches only by trying the other scheme of a URL whose origin
// failed: linked only as http://secure.real.test/only-http.html, whose
// http origin is closed, but served by https.
func (w *Web) ReachableByFallbackOnly() []string {
	return append([]string(nil), w.compute().viaFallback...)
}

// Redirects returns every redirect a crawl meets, URL -> Location (one
// hop; a chain is followed by looking its Location up again).
func (w *Web) Redirects() map[string]string {
	out := map[string]string{}
	for k, v := range w.compute().redirects {
		out[k] = v
	}
	return out
}

// Disallowed returns the URLs a crawl meets that robots.txt forbids
// (http://www.real.test/private/K.html): a polite crawler never requests
// them, though the origin would serve them.
func (w *Web) Disallowed() []string { return append([]string(nil), w.compute().disallowed...) }

// NotFound returns the URLs a crawl meets that their origin answers 404
// (none in a generated web; in the manuals, links to pages outside the
// served directories).
func (w *Web) NotFound() []string { return append([]string(nil), w.compute().notFound...) }

// UnreachableOrigins returns each origin that a crawl cannot fetch from
// (its behaviour is not [Serves], or its robots.txt is unreachable) and
// that the web links into, with how many distinct pages (row keys) linked
// through that origin get no answer by any scheme (a 404 or a redirect is
// an answer): what a crawl must leave queued there. An origin whose every
// linked page is answered by the other scheme is left out
// (http://secure.real.test). A page linked through two failing origins
// counts in each. The count is of pages linked to, not of pages linking.
func (w *Web) UnreachableOrigins() map[string]int {
	out := map[string]int{}
	for k, v := range w.compute().unreachable {
		out[k] = v
	}
	return out
}
