package crawlstore

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Page is the result of one fetch, handed to [Store.SavePage].
type Page struct {
	// URL is the URL requested: canonical, scheme included.
	URL string
	// FinalURL is the URL the response came from after redirects
	// (canonical); equal to URL when there was none.
	FinalURL string
	// Redirected is true when FinalURL has a different row key than URL.
	// The content and fetch facts then belong to FinalURL's row, and URL's
	// row records only a fetch with its redirect target. A redirect to the
	// same row key (http://x/ -> https://x/) is not a redirect.
	Redirected bool
	// Location is the canonical target of a redirect the crawler did not
	// follow because its URL was already met in this run, was fetched by
	// an earlier run (without Recrawl), or belongs to another shard's host
	// (it is fetched, or will be, on its own: at most one fetch per URL per
	// crawl). Status is
	// then the 3xx, Body is nil, and the store records Location as the
	// redirect of the row that answered (FinalURL's), leaving the target's
	// row alone. "" otherwise.
	Location string
	// Key is the row key of URL ([urlkey.KeyOf]), computed once.
	Key string
	// Frontier is the position of URL's entry in the store's frontier,
	// deleted with the done or failed mark; "" when it has none (a seed
	// queued again in memory, a retry).
	Frontier string
	// Depth is the frontier depth of URL.
	Depth int
	// Sitemap is what a sitemap said of URL (Entry.Sitemap), to store
	// with the fetch record.
	Sitemap SitemapHint
	// Time is when the fetch started, truncated to whole milliseconds.
	Time time.Time

	// Status is the HTTP status of the final response; 0 when no response
	// was received (see Err).
	Status int
	// MediaType is the Content-Type without parameters, lower case
	// ("text/html"). When the response had none, or unknown/unknown,
	// application/unknown or */*, and a body, it is the type sniffed from
	// the body (http.DetectContentType); "" for an empty body without one.
	MediaType string
	// Charset is the charset parameter of Content-Type, lower case, or for
	// HTML without one, the encoding detected from the page's bytes
	// (golang.org/x/net/html/charset); "" when unknown.
	Charset string
	// ETag and LastModified are the response headers of the same names.
	ETag, LastModified string

	// Body holds the body exactly as received (after Content-Encoding is
	// removed, before any charset conversion), at most crawler.Config.MaxBody bytes.
	// It is nil for a 304, for an error status, for an error, and for
	// non-HTML media types unless crawler.Config.StoreAll.
	Body []byte
	// SHA256 is the hex SHA-256 of Body; "" when Body is nil.
	SHA256 string
	// Header is the status line and the response headers of the final
	// response as received, in HTTP/1.1 wire form ending with an empty
	// line (net/http keeps no raw bytes: header names are canonicalised
	// and sorted), for web archives; nil when Body is nil. It still names
	// the Content-Encoding and Transfer-Encoding that Body no longer has.
	Header []byte
	// Length is the number of body bytes received (at most crawler.Config.MaxBody),
	// also when Body is nil.
	Length int64
	// Truncated is true when the body was longer than crawler.Config.MaxBody and
	// was cut there.
	Truncated bool
	// NotModified is true for a 304 answer to a conditional request: the
	// stored content is still current.
	NotModified bool

	// Rendered is the document a browser built from Body and the page's
	// scripts (the crawler's Config.Render), serialised as UTF-8 HTML; nil
	// when the page was not rendered. RenderTime is how long the render
	// took (0: none), Screenshot a PNG of its first screen
	// (Config.Screenshots; nil: none).
	Rendered   []byte
	RenderTime time.Duration
	Screenshot []byte

	// Err describes why the fetch failed ("" on success); ErrKind
	// classifies it for summaries.
	Err     string
	ErrKind ErrorKind

	// Links are the outgoing links of an HTML page, one per distinct target
	// (canonical URL; URLs differing only in session-id parameters are one
	// target, under the first spelling), in document order of first
	// appearance, at most crawler.Config.MaxLinks. Links to the page itself are
	// left out.
	// Every link is an anchor to store, followed or not.
	Links []Link
	// LinksFound counts the distinct http(s) targets of the page after
	// canonicalisation (the page itself left out), kept in Links or not:
	// more than len(Links) when the page had more than crawler.Config.MaxLinks.
	LinksFound int
	// Discovered are the links the crawler wants fetched (not nofollow,
	// within depth, allowed domains and trap limits), to be stored as
	// queued unless already known. With shards it includes links to other
	// shards' hosts, and the Location of a redirect to such a host (at the
	// page's depth).
	Discovered []Entry
	// Requeue says which fetched URLs among Discovered are queued again.
	Requeue Requeue
}

// State returns the frontier state the page must be marked with:
// StateFailed when Err is set, otherwise StateDone.
func (p *Page) State() State {
	if p.Err != "" {
		return StateFailed
	}
	return StateDone
}

// Link is an outgoing link of a page.
type Link struct {
	// URL is the canonical target URL, scheme included.
	URL string
	// Text is the anchor text, whitespace collapsed; an image's alt text
	// when the link has no text; the first non-empty text in document order
	// when the page links to the target more than once.
	Text string
	// NoFollow is true when every link to the target carries rel=nofollow
	// or the page has <meta name="robots" content="nofollow">.
	NoFollow bool
}

// ErrorKind classifies failed fetches for summaries.
type ErrorKind string

// The error kinds.
const (
	KindHTTP     ErrorKind = "http"     // status 400 or above
	KindNetwork  ErrorKind = "network"  // connection refused, reset, DNS, proxy...
	KindTimeout  ErrorKind = "timeout"  // crawler.Config.Timeout exceeded
	KindRobots   ErrorKind = "robots"   // disallowed by robots.txt (not fetched)
	KindRedirect ErrorKind = "redirect" // too many redirects, bad scheme, disallowed target
	KindBody     ErrorKind = "body"     // the body could not be read or decoded
	KindRender   ErrorKind = "render"   // the browser's tab crashed, or the page's scripts never let its document be read
)

// SHA256Hex returns the lower-case hex SHA-256 of b, as Page.SHA256 holds it.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
