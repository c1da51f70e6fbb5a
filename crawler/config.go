package crawler

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/webtable/webtable/urlkey"
)

// Version is the crawler's version, named in the default User-Agent.
const Version = "0.1.0"

// DefaultUserAgent names the crawler, its version and the project URL.
// robots.txt groups are matched against its first word, "webtable".
const DefaultUserAgent = "webtable/" + Version + " (+https://github.com/webtable/webtable)"

// Limits the crawler enforces whatever the Config says.
const (
	// MaxRedirects is the most redirects followed for one fetch.
	MaxRedirects = 10
	// MaxCrawlDelay caps a robots.txt Crawl-delay.
	MaxCrawlDelay = 30 * time.Second
	// MaxURLLength is the longest URL followed, in bytes.
	MaxURLLength = 2000
	// MaxSegmentRepeats is how often one path segment may appear in a URL
	// followed; more is a crawler trap (/a/b/a/b/a/b/a/b).
	MaxSegmentRepeats = 3
	// DefaultMaxLinks is the default of Config.MaxLinks (Heritrix keeps
	// 6,000 links a page; the Python manual's contents.html has several
	// thousand).
	DefaultMaxLinks = 10_000
	// MaxRetries is how often a fetch answered with 429 or a 5xx is tried
	// again in one run, after the server's Retry-After (capped at
	// MaxCrawlDelay) or a doubling backoff from 1s.
	MaxRetries = 2
	// maxRobotsBody bounds a robots.txt (Google reads 500 KiB).
	maxRobotsBody = 500 << 10
)

// Config configures a [Crawler]. Each field maps to one crawl flag; the
// zero value of a field is not its default, use [DefaultConfig].
type Config struct {
	// Depth is the most link hops from a seed (--depth). The default value is 3.
	Depth int
	// MaxPages stops the crawl after this many successful fetches in this
	// run (--max-pages); 0 means no limit. The default value is 0.
	MaxPages int
	// Concurrency is the most fetches in flight overall (--concurrency).
	// The default value is 8.
	Concurrency int
	// PerHost is the most fetches in flight to one host (--per-host) when
	// the host has no delay (Delay and its Crawl-delay 0); a host with a
	// delay is asked one request at a time. The default value is 2.
	PerHost int
	// Delay is the least time from the end of one response from a host
	// (its body read, or the request failed) to the start of the next
	// request to it (--delay); a longer robots.txt Crawl-delay wins,
	// capped at [MaxCrawlDelay]. With a delay, requests to one host never
	// overlap, so the server never sees two requests to one host closer
	// than the delay, however slow either side is. The default value is 1s.
	Delay time.Duration
	// Proxy, when set, is the HTTP proxy every fetch goes through, loopback
	// targets included (--proxy). When "", HTTP_PROXY, HTTPS_PROXY and
	// NO_PROXY apply as in [http.ProxyFromEnvironment]. The default value is "".
	Proxy string
	// RootCAs, when set, are the certificate authorities trusted for
	// https instead of the system's (crawl --ca-cert: a test web's own
	// CA). nil: the system's.
	RootCAs *x509.CertPool
	// AllowPrivate lets the crawler connect to loopback, private-network
	// and link-local addresses (see private.go); without it they are
	// refused unless a seed names one.
	AllowPrivate bool
	// IgnoreRobots skips robots.txt (--ignore-robots). The default value is false.
	IgnoreRobots bool
	// UserAgent is sent with every request (--user-agent). The default
	// value is [DefaultUserAgent].
	UserAgent string
	// Timeout bounds each request on the wire, from the moment the per-host
	// scheduler lets it start until its body is read (--timeout); waiting
	// for the host's turn does not count. A redirect hop and robots.txt are
	// requests of their own. The default value is 30s.
	Timeout time.Duration
	// MaxBody is the most body bytes kept; longer bodies are cut and the
	// page marked truncated (--max-body). The default value is 10 MiB.
	MaxBody int64
	// AllowDomains lists the domains that may be fetched, each with its
	// subdomains (--allow-domain). When empty, the registrable domain of
	// each seed (golang.org/x/net/publicsuffix), or the seed's host itself
	// when it has none (an IP address, localhost). Seeds themselves are
	// fetched whatever the list says. The default value is nil.
	AllowDomains []string
	// Recrawl fetches again pages already done, with conditional requests
	// (--recrawl). The default value is false.
	Recrawl bool
	// StoreAll keeps the bodies of non-HTML responses too (--store-all).
	// The default value is false.
	StoreAll bool
	// MaxPagesPerHost stops fetching a host's pages once this many are
	// done, counting those of earlier runs (the store keeps the count, so
	// it holds across kills and resumes); its other pages stay queued
	// (--max-pages-per-host). 0 means no limit. The default value is 0.
	MaxPagesPerHost int
	// SeenCache is how many row keys the crawler remembers as known to the
	// store in a run, to skip sending links it met already (the home page
	// every page links to) to the store again (--seen-cache). Only an
	// optimisation: the store decides what was seen; 0 turns it off. The
	// default value is DefaultSeenCache.
	SeenCache int
	// MaxLinks is the most distinct links kept from one page, the first in
	// document order (--max-links); how many the page had is recorded
	// beside them (Page.LinksFound), so none is dropped silently. The
	// default value is DefaultMaxLinks.
	MaxLinks int
	// Shard and Shards split a crawl between Shards crawlers sharing one
	// store (--shard I/N): this crawler fetches only the URLs whose host
	// falls in shard Shard by [crawlstore.ShardOf]; links to other shards' hosts are
	// handed to the store as discovered (queued for their shard) but never
	// fetched here, nor their robots.txt. Shards 0 or 1 means no sharding
	// (Shard must then be 0); otherwise 0 <= Shard < Shards. See the
	// package documentation, "Shards", for when a shard's run ends.
	// The default values are 0 and 0.
	Shard, Shards int
	// Sitemaps lists sitemap files to read at the start of the run
	// (--sitemap), beside those robots.txt names; their URLs are queued as
	// a seed's links. Their hosts are allowed as a seed's are. The default
	// value is nil.
	Sitemaps []string
	// NoSitemaps turns sitemaps off: neither robots.txt Sitemap lines nor
	// Sitemaps are read (--no-sitemaps). The default value is false.
	NoSitemaps bool
	// Render says which HTML pages are loaded in a browser after their
	// fetch (--render); it needs Renderer. The default value is RenderNever.
	Render RenderMode
	// Renderer renders pages when Render is not RenderNever (package
	// render over headless Chromium: --render-tabs, --render-timeout).
	// Not a flag. The default value is nil.
	Renderer Renderer
	// Screenshots asks the renderer for a PNG of each rendered page's first
	// screen (--screenshots). The default value is false.
	Screenshots bool
	// Progress, when set, is called with a snapshot of the statistics after
	// every page and when the run ends. It must return quickly and is
	// called from many goroutines, never concurrently. Not a flag.
	Progress func(Stats)
	// Hooks are called as the run goes, for metrics. Not flags.
	Hooks Hooks
	// Log, when set, is called with one line for each thing the crawl
	// skipped and the user should know of (a frontier entry that cannot be
	// read). It may be called from many goroutines at once. Not a flag.
	Log func(line string)
	// StoreGrace is how long store calls may still take once the context
	// of Run is cancelled (Ctrl-C). The pages in flight are then stored
	// with a context that Ctrl-C does not cancel; a store that has not
	// answered StoreGrace after it has its calls ended, and the run fails
	// with ErrStore ("the store did not answer within 10s of the
	// interrupt: ..."), so that a hung store cannot hold the program for
	// ever. 0 means no limit. The default value is 0. Not a flag.
	StoreGrace time.Duration
}

// DefaultConfig returns the configuration of a crawl with default flags.
func DefaultConfig() Config {
	return Config{
		Depth:       3,
		Concurrency: 8,
		PerHost:     2,
		Delay:       time.Second,
		UserAgent:   DefaultUserAgent,
		Timeout:     30 * time.Second,
		MaxBody:     10 << 20,
		MaxLinks:    DefaultMaxLinks,
		SeenCache:   DefaultSeenCache,
	}
}

// validate checks the configuration; errors wrap ErrConfig.
func (c *Config) validate() error {
	switch {
	case c.Depth < 0:
		return fmt.Errorf("%w: depth %d is negative", ErrConfig, c.Depth)
	case c.MaxPages < 0:
		return fmt.Errorf("%w: max pages %d is negative", ErrConfig, c.MaxPages)
	case c.Concurrency < 1:
		return fmt.Errorf("%w: concurrency %d is below 1", ErrConfig, c.Concurrency)
	case c.PerHost < 1:
		return fmt.Errorf("%w: per-host %d is below 1", ErrConfig, c.PerHost)
	case c.Delay < 0:
		return fmt.Errorf("%w: delay %v is negative", ErrConfig, c.Delay)
	case c.Timeout <= 0:
		return fmt.Errorf("%w: timeout %v is not positive", ErrConfig, c.Timeout)
	case c.MaxBody < 1:
		return fmt.Errorf("%w: max body %d is below 1", ErrConfig, c.MaxBody)
	case c.MaxPagesPerHost < 0:
		return fmt.Errorf("%w: max pages per host %d is negative", ErrConfig, c.MaxPagesPerHost)
	case c.SeenCache < 0:
		return fmt.Errorf("%w: seen cache %d is negative", ErrConfig, c.SeenCache)
	case c.MaxLinks < 1:
		return fmt.Errorf("%w: max links %d is below 1", ErrConfig, c.MaxLinks)
	case c.Render != RenderNever && c.Renderer == nil:
		return fmt.Errorf("%w: render mode %s without a renderer", ErrConfig, c.Render)
	case c.UserAgent == "":
		return fmt.Errorf("%w: empty user agent", ErrConfig)
	case c.Shards < 0:
		return fmt.Errorf("%w: shards %d is negative", ErrConfig, c.Shards)
	case c.Shards <= 1 && c.Shard != 0:
		return fmt.Errorf("%w: shard %d without sharding (shards %d)", ErrConfig, c.Shard, c.Shards)
	case c.Shards > 1 && (c.Shard < 0 || c.Shard >= c.Shards):
		return fmt.Errorf("%w: shard %d is not in [0, %d)", ErrConfig, c.Shard, c.Shards)
	}
	if c.Proxy != "" {
		u, err := url.Parse(c.Proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") || u.Host == "" {
			return fmt.Errorf("%w: proxy %q is not an http, https or socks5 URL", ErrConfig, c.Proxy)
		}
	}
	for _, d := range c.AllowDomains {
		if d == "" || strings.ContainsAny(d, "/:@ ") {
			return fmt.Errorf("%w: allowed domain %q is not a domain name", ErrConfig, d)
		}
	}
	return nil
}

// RegistrableDomain returns the domain a seed host allows by default: its
// registrable domain (eTLD+1, "www.cnn.com" -> "cnn.com"), or the host
// itself for an IP address, localhost or a name without a public suffix.
// host is a hostname without port, as url.URL.Hostname returns it.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}

// domainAllowed reports whether host (no port) is one of domains or a
// subdomain of one.
func domainAllowed(host string, domains []string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range domains {
		if host == d || (len(host) > len(d) && strings.HasSuffix(host, d) && host[len(host)-len(d)-1] == '.') {
			return true
		}
	}
	return false
}

// parseCanonical is urlkey.Canonical, for tests in this package.
var parseCanonical = urlkey.Canonical
