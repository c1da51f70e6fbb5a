package crawlstore

import "time"

// State is the frontier state of a URL.
type State uint8

// The frontier states. The names are those of the WebTable's fetch:state.
const (
	StateNone   State = iota // unknown to the store
	StateQueued              // waiting to be fetched
	StateDone                // fetched (any HTTP status below 400, 304 included)
	StateFailed              // the last fetch failed; fetched again by the next run that meets it
)

// String returns "queued", "done", "failed" or "" for StateNone.
func (s State) String() string {
	switch s {
	case StateQueued:
		return "queued"
	case StateDone:
		return "done"
	case StateFailed:
		return "failed"
	}
	return ""
}

// MarshalText returns the text of String, so that a State reads as its
// name in JSON.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText is the inverse of MarshalText; unknown text is StateNone.
func (s *State) UnmarshalText(b []byte) error {
	*s = ParseState(string(b))
	return nil
}

// ParseState is the inverse of State.String; unknown text is StateNone.
func ParseState(s string) State {
	switch s {
	case "queued":
		return StateQueued
	case "done":
		return StateDone
	case "failed":
		return StateFailed
	}
	return StateNone
}

// Entry is a frontier entry: a URL to fetch and its depth. It carries the
// URL canonical and its row key across the crawler/store boundary, so that
// neither side parses or keys it again.
type Entry struct {
	// URL is canonical ([urlkey.Canonical]), scheme included.
	URL string
	// Key is urlkey.KeyOf of URL; "" when the caller did not compute it
	// (the store then does).
	Key string
	// Depth is the number of link hops from a seed (a seed is 0).
	Depth int
	// Chain is how many links within one URL pattern led here (see
	// crawler.MaxPatternChain); 0 for a seed or a link that changed pattern.
	Chain int
	// Frontier is the entry's position in the store's frontier, set by the
	// store; "" when it is not there.
	Frontier string
	// Sitemap is what a sitemap said of URL, when it was queued from one
	// in this run (Listed); the store need not keep it in its frontier.
	Sitemap SitemapHint
}

// Fetch is what a store remembers of the last fetch of a URL: the record
// of the fetch and the URL's frontier state (the WebTable's fetch family),
// with the hash and media type of the newest stored content.
type Fetch struct {
	URL          string    // the URL fetched (the final one after same-row redirects; final URL for the row holding content)
	Status       int       // HTTP status; 0 when no response came
	Time         time.Time // when the fetch started (whole milliseconds, UTC)
	Length       int64     // body bytes received (after any cut at the size limit)
	Charset      string    // charset of the last fetch, "" if unknown
	ETag         string    // ETag response header, "" if none
	LastModified string    // Last-Modified response header, "" if none
	Redirect     string    // target URL when the page redirected to another row
	Error        string    // why the fetch failed; "" on success
	Truncated    bool      // the body was cut at the size limit
	Depth        int       // link hops from a seed, recorded with the fetch
	Links        int       // distinct http(s) targets the page linked to
	LinksKept    int       // how many of them were stored as anchors (at most the crawl's --max-links)
	State        State     // frontier state
	// Rendered says the page was loaded in a browser (crawl --render; its
	// document is in the WebTable's contents:rendered), RenderTime how long
	// that took, whole milliseconds (also for a render that failed).
	Rendered   bool
	RenderTime time.Duration

	// SHA256 is the hex SHA-256 of the newest stored content of the row
	// ("" when none) and MediaType its media type (the WebTable's
	// contents:sha256 and mime:type, outside the fetch family). A store
	// fills them in for conditional recrawls.
	SHA256    string
	MediaType string

	// Sitemap is what a sitemap said of the page when it was queued from
	// one (stored in the fetch record); Listed false when it was not.
	Sitemap SitemapHint
}

// Fetched reports whether the record describes a fetch that was made (as
// opposed to a frontier entry that was only queued).
func (f Fetch) Fetched() bool { return !f.Time.IsZero() }
