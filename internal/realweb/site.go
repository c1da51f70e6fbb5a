package realweb

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
)

// Domain is the registrable domain of every host of a generated web
// (crawl --allow-domain real.test).
const Domain = "real.test"

// The host names of a generated web besides the site hosts of [SiteHost].
// doc.go describes each one's origins.
const (
	HostWWW        = "www." + Domain         // the portal: both schemes; the seed
	HostSecure     = "secure." + Domain      // https serves; http is Closed
	HostPlain      = "plain." + Domain       // http serves; https is Closed
	HostRedirect   = "redir." + Domain       // redirects between the schemes
	HostSlow       = "slow." + Domain        // both schemes; robots.txt has a Crawl-delay
	HostRobotsDown = "robots-down." + Domain // http: pages served, robots.txt reset
	HostRefused    = "refused." + Domain     // https: CONNECT answered 403
	HostTLSAlert   = "tls-alert." + Domain   // https: a TLS alert
	HostUntrusted  = "tls-untrusted." + Domain
	HostReset      = "reset." + Domain      // https: CONNECT reset
	HostResetHTTP  = "reset-http." + Domain // http: request reset
)

// ClosedPortOrigin is an https origin of the portal's host on a port
// nobody listens on: CONNECT www.real.test:8444 is answered 502.
const ClosedPortOrigin = "https://" + HostWWW + ":8444"

// The fixed sizes of the named hosts.
const (
	smallPages = 6 // secure, plain: "/" and 5 pages
	slowPages  = 4 // slow: "/" and 3 pages
	deadPages  = 3 // pages linked on each unreachable origin
	chains     = 3 // redirect chains (and up/down redirects) on redir
)

// SiteHost returns the name of site host i of a generated web,
// h000.real.test for 0.
func SiteHost(i int) string {
	n := strconv.Itoa(i)
	if len(n) < 3 {
		n = "00"[:3-len(n)] + n
	}
	return "h" + n + "." + Domain
}

// Config describes a generated web. The same Config gives the same web:
// the same hosts, pages, links and bytes.
type Config struct {
	// Seed chooses the links. The default value is 0 (a seed like any
	// other).
	Seed int64
	// Hosts is the number of site hosts, h000.real.test up. The default
	// value is 4.
	Hosts int
	// Pages is the number of pages of each site host, "/" included. The
	// default value is 50.
	Pages int
	// Links is the number of links on each site page, at least 4. The
	// default value is 12.
	Links int
	// IndexLinks is the number of links on http://www.real.test/all.html,
	// the big index (they go round every site page, in turn by http,
	// https, scheme-relative and root-relative form). The default value
	// is 3000.
	IndexLinks int
	// PageBytes is the approximate size of the filler text of each
	// generated page. The default value is 1024.
	PageBytes int
	// CrawlDelay is the Crawl-delay, in whole seconds, of
	// slow.real.test's robots.txt (both schemes). The default value is 1.
	CrawlDelay int
}

// defaults fills in the default value of each field that is not
// positive, and raises Links to 4.
func (c *Config) defaults() {
	setDefault(&c.Hosts, 4)
	setDefault(&c.Pages, 50)
	setDefault(&c.Links, 12)
	c.Links = max(c.Links, 4)
	setDefault(&c.IndexLinks, 3000)
	setDefault(&c.PageBytes, 1024)
	setDefault(&c.CrawlDelay, 1)
}

// setDefault sets *v to def when *v is not positive.
func setDefault(v *int, def int) {
	if *v <= 0 {
		*v = def
	}
}

// Start serves the web cfg describes on 127.0.0.1 until Close.
func Start(cfg Config) (*Web, error) {
	cfg.defaults()
	g := &generated{cfg: cfg}
	g.pad = "<p>" + strings.Repeat("lorem ipsum dolor sit amet ", cfg.PageBytes/27+1) + "</p>\n"
	g.specials = specials()
	origins := map[string]Behaviour{
		"http://" + HostWWW:         Serves,
		"https://" + HostWWW:        Serves,
		ClosedPortOrigin:            Closed,
		"https://" + HostSecure:     Serves,
		"http://" + HostSecure:      Closed,
		"http://" + HostPlain:       Serves,
		"https://" + HostPlain:      Closed,
		"http://" + HostRedirect:    Serves,
		"https://" + HostRedirect:   Serves,
		"http://" + HostSlow:        Serves,
		"https://" + HostSlow:       Serves,
		"http://" + HostRobotsDown:  RobotsReset,
		"https://" + HostRobotsDown: Closed,
		"https://" + HostRefused:    Refused,
		"http://" + HostRefused:     Closed,
		"https://" + HostTLSAlert:   TLSAlert,
		"http://" + HostTLSAlert:    Closed,
		"https://" + HostUntrusted:  TLSUntrusted,
		"http://" + HostUntrusted:   Closed,
		"https://" + HostReset:      Reset,
		"http://" + HostReset:       Closed,
		"http://" + HostResetHTTP:   Reset,
		"https://" + HostResetHTTP:  Closed,
	}
	for i := range cfg.Hosts {
		origins["http://"+SiteHost(i)] = Serves
		origins["https://"+SiteHost(i)] = Serves
	}
	inWeb := func(hp string) bool { return strings.HasSuffix(hostName(hp), "."+Domain) }
	return start(g, origins, Closed, inWeb)
}

// generated is the content of a generated web. Site pages are made from
// the seed on each request, so a web of many pages costs no memory.
type generated struct {
	cfg      Config
	pad      string
	specials []string
}

func (g *generated) seeds() []string { return []string{"http://" + HostWWW + "/"} }

// specials are the links of the portal, and one of them is on each site
// page: every named host, reached by the scheme that works and the one
// that does not.
func specials() []string {
	var s []string
	add := func(format string, a ...any) { s = append(s, fmt.Sprintf(format, a...)) }
	add("https://%s/", HostSecure)
	add("http://%s/s3.html", HostSecure) // the dead scheme
	add("http://%s/only-http.html", HostSecure)
	add("http://%s/", HostPlain)
	add("https://%s/p3.html", HostPlain) // the dead scheme
	add("https://%s/only-https.html", HostPlain)
	add("http://%s/", HostRedirect)
	for k := range chains {
		add("http://%s/up/%d.html", HostRedirect, k)
		add("https://%s/down/%d.html", HostRedirect, k)
		add("http://%s/chain/%d.html", HostRedirect, k)
	}
	add("https://%s/to-refused.html", HostRedirect)
	add("http://%s/", HostSlow)
	add("https://%s/", HostSlow)
	for k := range deadPages {
		add("http://%s/r%d.html", HostRobotsDown, k)
		add("https://%s/x%d.html", HostRefused, k)
		add("https://%s/x%d.html", HostTLSAlert, k)
		add("https://%s/x%d.html", HostUntrusted, k)
		add("https://%s/x%d.html", HostReset, k)
		add("http://%s/x%d.html", HostResetHTTP, k)
		add("%s/x%d.html", ClosedPortOrigin, k)
		add("http://%s/private/%d.html", HostWWW, k)
	}
	return s
}

func (g *generated) robots(scheme, hp string) robotsFile {
	switch {
	case hp == HostWWW:
		return robotsFile{found: true, text: "User-agent: *\nDisallow: /private/\n", disallow: []string{"/private/"}}
	case hp == HostSlow:
		return robotsFile{found: true, text: fmt.Sprintf("User-agent: *\nCrawl-delay: %d\nDisallow:\n", g.cfg.CrawlDelay)}
	case hp == HostSecure || hp == HostPlain:
		return robotsFile{found: true, text: "User-agent: *\nAllow: /\n"}
	}
	if h, ok := g.site(hp); ok && h%2 == 1 {
		return robotsFile{found: true, text: "User-agent: *\nDisallow:\n"}
	}
	return robotsFile{} // 404: allow all
}

// site returns the index of a site host.
func (g *generated) site(hp string) (int, bool) {
	name, ok := strings.CutSuffix(hp, "."+Domain)
	if !ok || len(name) < 4 || name[0] != 'h' {
		return 0, false
	}
	h, err := strconv.Atoi(name[1:])
	if err != nil || h < 0 || h >= g.cfg.Hosts || SiteHost(h) != hp {
		return 0, false
	}
	return h, true
}

// sitePath is the path of page n of a site host.
func sitePath(n int) string {
	if n == 0 {
		return "/"
	}
	return "/d" + strconv.Itoa(n%4) + "/p" + strconv.Itoa(n) + ".html"
}

// sitePage parses a site path; ok is false for no page.
func (g *generated) sitePage(path string) (int, bool) {
	if path == "/" {
		return 0, true
	}
	i := strings.LastIndex(path, "/p")
	if i < 0 || !strings.HasSuffix(path, ".html") {
		return 0, false
	}
	n, err := strconv.Atoi(path[i+2 : len(path)-len(".html")])
	if err != nil || n <= 0 || n >= g.cfg.Pages || sitePath(n) != path {
		return 0, false
	}
	return n, true
}

func page(title string, links []string) response {
	return response{status: http.StatusOK, ctype: "text/html; charset=utf-8", title: title, links: links}
}

func redirect(status int, to string) response { return response{status: status, location: to} }

var notFound = response{status: http.StatusNotFound}

func (g *generated) lookup(scheme, hp, path string) response {
	r := g.lookup1(scheme, hp, path)
	r.pad = g.pad
	return r
}

func (g *generated) lookup1(scheme, hp, path string) response {
	if h, ok := g.site(hp); ok {
		n, ok := g.sitePage(path)
		if !ok {
			return notFound
		}
		return page(hp+path, g.siteLinks(h, n))
	}
	switch hp {
	case HostWWW:
		return g.portal(path)
	case HostSecure, HostPlain:
		return small(hp, path)
	case HostRedirect:
		return redirects(scheme, path)
	case HostSlow:
		if path == "/" {
			return page(hp+path, []string{"w1.html", "https://" + HostSlow + "/w2.html", "http://" + HostSlow + "/w3.html"})
		}
		var k int
		if _, err := fmt.Sscanf(path, "/w%d.html", &k); err == nil && k > 0 && k < slowPages && path == fmt.Sprintf("/w%d.html", k) {
			return page(hp+path, []string{"/", "https://" + HostWWW + "/"})
		}
		return notFound
	}
	// The unreachable hosts' pages (served only where their origin
	// serves: robots-down's http, and a client that ignores TLS errors).
	var k int
	if path == "/" {
		return page(hp+path, []string{"x0.html", "r0.html"})
	}
	if _, err := fmt.Sscanf(path, "/x%d.html", &k); err == nil && k >= 0 && k < deadPages && path == fmt.Sprintf("/x%d.html", k) {
		return page(hp+path, []string{"/"})
	}
	if _, err := fmt.Sscanf(path, "/r%d.html", &k); err == nil && k >= 0 && k < deadPages && path == fmt.Sprintf("/r%d.html", k) {
		return page(hp+path, []string{"/", fmt.Sprintf("r%d.html", (k+1)%deadPages)})
	}
	return notFound
}

// portal answers www.real.test.
func (g *generated) portal(path string) response {
	switch path {
	case "/":
		links := []string{"about.html", "https://" + HostWWW + "/about.html", "/all.html"}
		for h := range g.cfg.Hosts {
			scheme := "http"
			if h%2 == 1 {
				scheme = "https"
			}
			links = append(links, scheme+"://"+SiteHost(h)+"/")
		}
		links = append(links, g.specials...)
		return page(HostWWW+" portal", links)
	case "/about.html":
		return page(HostWWW+" about", []string{"/", "http://" + HostWWW + "/all.html#top"})
	case "/all.html":
		links := make([]string, 0, g.cfg.IndexLinks)
		total := g.cfg.Hosts * g.cfg.Pages
		for i := range g.cfg.IndexLinks {
			j := i % total
			hp, p := SiteHost(j%g.cfg.Hosts), sitePath(j/g.cfg.Hosts)
			switch (i / total) % 4 {
			case 0:
				links = append(links, "http://"+hp+p)
			case 1:
				links = append(links, "https://"+hp+p)
			case 2:
				links = append(links, "//"+hp+p)
			default:
				links = append(links, "https://"+hp+p+"#s"+strconv.Itoa(i))
			}
		}
		return page(HostWWW+" index of every page", links)
	}
	var k int
	if _, err := fmt.Sscanf(path, "/private/%d.html", &k); err == nil && k >= 0 && k < deadPages && path == fmt.Sprintf("/private/%d.html", k) {
		return page(HostWWW+path, []string{"/"})
	}
	return notFound
}

// small answers secure.real.test and plain.real.test: a chain of pages
// linked relatively (so by the scheme that works), each also linking to a
// later page by absolute URL with the scheme that does not, and one page
// linked only by the scheme that does not (a crawler reaches it only by
// trying the other scheme of its row key).
func small(hp, path string) response {
	letter, good, bad := "s", "https", "http"
	only := "/only-http.html"
	if hp == HostPlain {
		letter, good, bad = "p", "http", "https"
		only = "/only-https.html"
	}
	switch path {
	case "/":
		return page(hp+path, []string{letter + "1.html", bad + "://" + hp + only})
	case only:
		return page(hp+path, []string{"/", good + "://" + hp + "/"})
	}
	var k int
	if _, err := fmt.Sscanf(path, "/"+letter+"%d.html", &k); err != nil || k <= 0 || k >= smallPages || path != fmt.Sprintf("/%s%d.html", letter, k) {
		return notFound
	}
	links := []string{"./", fmt.Sprintf("%s://%s/%s%d.html", bad, hp, letter, k%(smallPages-1)+1)}
	if k+1 < smallPages {
		links = append(links, fmt.Sprintf("%s%d.html", letter, k+1))
	}
	return page(hp+path, links)
}

// redirects answers redir.real.test:
//
//	http://redir.real.test/up/K.html -> 301 https://redir.real.test/up/K.html (200)
//	https://redir.real.test/down/K.html -> 302 http://redir.real.test/down/K.html (200)
//	{http,https}://redir.real.test/chain/K.html -> 301 https://redir.real.test/hop/K.html
//	{http,https}://redir.real.test/hop/K.html -> 302 http://redir.real.test/last/K.html
//	{http,https}://redir.real.test/last/K.html -> 301 https://redir.real.test/final/K.html (200 on both)
//	{http,https}://redir.real.test/to-refused.html -> 302 https://refused.real.test/x0.html
func redirects(scheme, path string) response {
	const h = HostRedirect
	if path == "/" {
		var links []string
		for k := range chains {
			links = append(links, fmt.Sprintf("up/%d.html", k), fmt.Sprintf("https://%s/down/%d.html", h, k), fmt.Sprintf("/chain/%d.html", k))
		}
		return page(h+path, append(links, "to-refused.html"))
	}
	if path == "/to-refused.html" {
		return redirect(http.StatusFound, "https://"+HostRefused+"/x0.html")
	}
	dir, file, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	var k int
	if _, err := fmt.Sscanf(file, "%d.html", &k); !ok || err != nil || k < 0 || k >= chains || file != fmt.Sprintf("%d.html", k) {
		return notFound
	}
	switch dir {
	case "up":
		if scheme == "http" {
			return redirect(http.StatusMovedPermanently, "https://"+h+path)
		}
	case "down":
		if scheme == "https" {
			return redirect(http.StatusFound, "http://"+h+path)
		}
	case "chain":
		return redirect(http.StatusMovedPermanently, fmt.Sprintf("https://%s/hop/%d.html", h, k))
	case "hop":
		return redirect(http.StatusFound, fmt.Sprintf("http://%s/last/%d.html", h, k))
	case "last":
		return redirect(http.StatusMovedPermanently, fmt.Sprintf("https://%s/final/%d.html", h, k))
	case "final":
	default:
		return notFound
	}
	return page(h+path, []string{"/", "https://" + HostWWW + "/"})
}

// siteLinks returns the links of page n of site host h: its two children
// in a binary tree of the host's pages (so every page is reachable from
// "/"), then links to random pages of the host (4 in 5) or of another
// site host, each written in a random form (relative, root-relative,
// http://, https:// or scheme-relative; a fragment now and then), then
// one link from [specials]. Host "/" pages also link to the next host and
// back to the portal.
func (g *generated) siteLinks(h, n int) []string {
	c := g.cfg
	r := rand.New(rand.NewPCG(uint64(c.Seed), uint64(h)<<32|uint64(n)))
	from := sitePath(n)
	links := make([]string, 0, c.Links+3)
	for _, child := range []int{2*n + 1, 2*n + 2} {
		if child < c.Pages {
			links = append(links, g.href(r, from, h, h, child))
		}
	}
	if n == 0 {
		links = append(links, g.href(r, from, h, (h+1)%c.Hosts, 0), "http://"+HostWWW+"/")
	}
	for len(links) < c.Links-1 {
		to := h
		if c.Hosts > 1 && r.IntN(5) == 0 {
			to = r.IntN(c.Hosts)
		}
		links = append(links, g.href(r, from, h, to, r.IntN(c.Pages)))
	}
	return append(links, g.specials[(h*c.Pages+n)%len(g.specials)])
}

// href writes a link from path from on host h to page n of host to.
func (g *generated) href(r *rand.Rand, from string, h, to, n int) string {
	p := sitePath(n)
	var s string
	kind := r.IntN(5)
	if to != h && kind < 2 {
		kind += 2
	}
	switch kind {
	case 0:
		s = relative(from, p)
	case 1:
		s = p
	case 2:
		s = "http://" + SiteHost(to) + p
	case 3:
		s = "https://" + SiteHost(to) + p
	default:
		s = "//" + SiteHost(to) + p
	}
	if r.IntN(8) == 0 {
		s += "#sec" + strconv.Itoa(r.IntN(3))
	}
	return s
}

// relative returns a relative reference from path from to path to (both
// "/" or "/dir/file").
func relative(from, to string) string {
	fromDir := from[:strings.LastIndex(from, "/")+1]
	toDir, toFile := to[:strings.LastIndex(to, "/")+1], to[strings.LastIndex(to, "/")+1:]
	switch {
	case fromDir == toDir && toFile == "":
		return "./"
	case fromDir == toDir:
		return toFile
	case fromDir == "/":
		return strings.TrimPrefix(to, "/")
	case toDir == "/":
		return "../" + toFile
	default:
		return "../" + strings.TrimPrefix(to, "/")
	}
}
