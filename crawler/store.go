package crawler

import (
	"context"
	"time"
)

// Store is what the crawler needs from storage. The crawler never imports a
// storage package: cmd/crawl adapts the WebTable to this interface, and
// [MemStore] implements it in memory. crawlertest.StoreContract checks an
// implementation against the contract written here.
//
// # Frontier
//
// Every URL the store knows has a [State]. A URL becomes known as
// [StateQueued] through Enqueue or SavePage (Page.Discovered) and leaves that
// state only through SavePage, which marks it [StateDone] or [StateFailed].
// Nothing ever moves a URL back to StateQueued: a crawl that fetches a done or
// failed URL again (recrawl, retry) simply saves it again. URLs are
// identified by row key ([urlkey.KeyOf] of the canonical URL), so
// http://x/ and https://x/ are one entry.
//
// # Atomicity and order (what makes a crash lose nothing)
//
// SavePage must, in this order:
//  1. store the page's own row (fetch record, media type, content version
//     when p.Body != nil and changed) atomically per row. For a redirect
//     between keys (p.Redirected) that is two rows: the target's
//     (FinalURL) with the content and fetch facts, the source's (URL) with
//     a fetch record naming the target. For an unfollowed redirect
//     (p.Location != "") only URL's row is written, naming Location;
//     Location's row is not touched;
//  2. store every anchor of p.Links and every entry of p.Discovered (in bulk,
//     not necessarily atomically with each other);
//  3. only then mark the page (and a redirect target) done or failed.
//
// A crash between the steps leaves the page queued, so the next run fetches
// it again and rewrites the same rows: every step must be idempotent.
// The crawler relies on a page that is done having all of its anchors and
// discovered links stored.
//
// # Concurrency
//
// The crawler calls every method from many goroutines at once, but never
// calls SavePage twice at the same time for the same URL. Methods take a
// context and should honour it; the crawler passes a context that is not
// cancelled by Ctrl-C while it finishes the pages in flight.
type Store interface {
	// Queued calls fn for each URL in StateQueued, in any order, with the
	// depth it was enqueued at. It stops early when fn returns false.
	// The crawler calls it once, at the start of a run (resume).
	Queued(ctx context.Context, fn func(Entry) bool) error

	// LastFetch returns the facts of the last recorded fetch of the URL
	// (any scheme of the same row key); ok is false when the URL was never
	// fetched (it may still be queued). The crawler uses it for conditional
	// requests when recrawling.
	LastFetch(ctx context.Context, url string) (f Fetch, ok bool, err error)

	// Enqueue records each entry as StateQueued unless its URL is already
	// known, and returns the state each URL had before the call (StateNone
	// for a new URL), in the order of entries. A URL listed twice is new
	// only the first time.
	Enqueue(ctx context.Context, entries []Entry) ([]State, error)

	// Content returns the latest stored content (Page.Body of the newest
	// version) of the URL's row; ok is false when none is stored. The
	// crawler reads it after a 304 to follow the links of an unchanged page.
	Content(ctx context.Context, url string) (body []byte, ok bool, err error)

	// SavePage stores one fetch and what it produced, in the order above,
	// and reports the states the URLs of p.Discovered had before the call
	// (same order, as Enqueue) and whether a new content version was stored:
	// true when p.Body != nil and its SHA-256 (p.SHA256) differs from the
	// latest stored version of the row that holds the content.
	SavePage(ctx context.Context, p *Page) (SaveResult, error)
}

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

// Entry is a frontier entry: a URL to fetch and its depth.
type Entry struct {
	// URL is canonical ([urlkey.Canonical]), scheme included.
	URL string
	// Depth is the number of link hops from a seed (a seed is 0).
	Depth int
}

// Fetch is what a store remembers of the last fetch of a URL.
type Fetch struct {
	URL          string    // the URL fetched (final URL for the row holding content)
	State        State     // frontier state
	Depth        int       // depth recorded with the fetch
	Status       int       // HTTP status; 0 if the fetch failed before a response
	Time         time.Time // when the fetch started (whole milliseconds)
	ETag         string    // ETag response header, "" if none
	LastModified string    // Last-Modified response header, "" if none
	SHA256       string    // hex SHA-256 of the latest stored content, "" if none
	MediaType    string    // media type of the last fetch
	Charset      string    // charset of the last fetch
}

// SaveResult is what SavePage reports back.
type SaveResult struct {
	// States holds the prior state of each URL of Page.Discovered, in order.
	States []State
	// NewVersion is true when a new content version was stored.
	NewVersion bool
}
