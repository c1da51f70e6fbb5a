package crawlstore

import (
	"context"
	"time"
)

// Store is what the crawler needs from storage. The crawler never imports a
// storage package, and no store imports the crawler: webtable.CrawlStore
// implements this interface on the WebTable, crawlertest.MemStore in
// memory. crawlertest.StoreContract checks an implementation against the
// contract written here.
//
// # Frontier
//
// Every URL the store knows has a [State]; the store, not the crawler's
// memory, is what says a URL was seen. A URL becomes known as
// [StateQueued] through Enqueue or SavePage (Page.Discovered) and leaves that
// state through SavePage, which marks it [StateDone] or [StateFailed]. A
// done or failed URL moves back to StateQueued only when a [Requeue] passed
// with Enqueue or SavePage says so (a failed URL in a later run, a done URL
// in a recrawl). URLs are identified by row key ([urlkey.KeyOf] of the
// canonical URL), so http://x/ and https://x/ are one entry.
//
// Each queued URL also has an entry in the store's frontier, ordered per
// host by discovery: Enqueue and SavePage set Entry.Frontier (an opaque
// position) on each entry they queued, Hosts lists the hosts that have
// entries, and Next reads a host's entries from a position on, forward
// only. SavePage deletes the entry named by Page.Frontier with the done
// mark. An entry whose URL was fetched meanwhile (the same URL queued
// twice by pages saved at the same moment) is dropped by Next.
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
	// Hosts calls fn with each host (url.URL.Host of a canonical URL) that
	// has frontier entries and falls in shard of shards ([ShardOf]; every
	// host when shards <= 1), once each, until fn returns false. The
	// crawler calls it at the start of a run (resume), and again while a
	// sharded run goes on when the store is no [HostFeed]; it must not
	// read the entries themselves.
	Hosts(ctx context.Context, shard, shards int, fn func(host string) bool) error

	// Next reads up to n frontier entries of host, in order of discovery,
	// from position from ("" = the first) on, each with its URL (canonical),
	// Key, Depth, Chain and Frontier set. It never returns an entry before
	// from again.
	Next(ctx context.Context, host, from string, n int) (FrontierBatch, error)

	// HostPages counts the pages of host (url.URL.Host) marked done by
	// SavePage, in this run or any earlier one, up to limit (it may stop
	// counting there). --max-pages-per-host reads it once per host and run.
	HostPages(ctx context.Context, host string, limit int) (int, error)

	// LastFetch returns the facts of the last recorded fetch of the row
	// key (Entry.Key, Page.Key: one for every scheme of a URL); ok is
	// false when the URL was never fetched (it may still be queued). The
	// crawler uses it for conditional requests when recrawling.
	LastFetch(ctx context.Context, key string) (f Fetch, ok bool, err error)

	// Enqueue records each entry as StateQueued unless its URL is already
	// known (or rq asks for it again), and returns the state each URL had
	// before the call (StateNone for a new URL), in the order of entries.
	// A URL listed twice is new only the first time. It sets Frontier on
	// each entry it queued.
	Enqueue(ctx context.Context, entries []Entry, rq Requeue) ([]State, error)

	// Content returns the latest stored content (Page.Body of the newest
	// version) of the row key's row; ok is false when none is stored. The
	// crawler reads it after a 304 to follow the links of an unchanged page.
	Content(ctx context.Context, key string) (body []byte, ok bool, err error)

	// SavePage stores one fetch and what it produced, in the order above,
	// and reports the states the URLs of p.Discovered had before the call
	// (same order, as Enqueue) and whether a new content version was stored:
	// true when p.Body != nil and its SHA-256 (p.SHA256) differs from the
	// latest stored version of the row that holds the content. It queues
	// p.Discovered as Enqueue does with p.Requeue, setting Frontier on each
	// entry it queued, and deletes p.Frontier with the mark.
	SavePage(ctx context.Context, p *Page) (SaveResult, error)
}

// FrontierBatch is what [Store.Next] read.
type FrontierBatch struct {
	// Entries are the entries read, in order.
	Entries []Entry
	// Next is the position the next read starts at.
	Next string
	// More is false when the host has no entry after Next (as far as the
	// store knew when it was read).
	More bool
	// Bad describes each entry that could not be read and was skipped, one
	// line each naming its key; the crawl goes on without it.
	Bad []string
}

// Requeue says which URLs already fetched are queued again when met: failed
// ones, done ones (a recrawl), each only when its last fetch started
// before Before, so that one run fetches a URL once.
type Requeue struct {
	Failed, Done bool
	Before       time.Time
}

// SaveResult is what SavePage reports back.
type SaveResult struct {
	// States holds the prior state of each URL of Page.Discovered, in order.
	States []State
	// NewVersion is true when a new content version was stored.
	NewVersion bool
}
