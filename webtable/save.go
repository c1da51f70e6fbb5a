package webtable

import (
	"context"
	"fmt"
	"net/url"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// Fetched is everything one fetch produces, as [WebTable.Save] stores it.
type Fetched struct {
	// Page is the fetch of the row that holds the content (for a redirect
	// between rows, the target's).
	Page *Page
	// Source, for a redirect between rows, is the fetch record of the URL
	// that redirected (no body); nil otherwise.
	Source *Page
	// Anchors are the page's links, stored as anchor:<referrer> at
	// AnchorTime in each target's row; Discovered the URLs to queue.
	Anchors    []Anchor
	Discovered []crawlstore.Entry
	AnchorTime bigtable.Timestamp
	// State is the frontier state the fetch ends in (done or failed), set
	// at StateTime on Page's row and Source's.
	State     crawlstore.State
	StateTime bigtable.Timestamp
	// Frontier lists the frontier entries of the page (its Entry.Frontier),
	// deleted with the mark.
	Frontier []string
	// Requeue says which fetched URLs among Discovered are queued again.
	Requeue crawlstore.Requeue
	// NewRow says the caller knows that Page's row holds no content
	// version and no fetch record (a URL it queued as new and has not
	// stored since), so that Save stores the body without reading the
	// row's newest version first, and writes the page's fetch record,
	// state, contents, MIME type and anchors without pruning
	// (bigtable.Mutation.SetOnlyVersion), deleting the queued row's state
	// (at FrontierTime) as a known cell: a save that reads nothing.
	// Leave it false when unsure: a wrong true stores a body equal to the
	// newest version as one more version, and leaves versions that the GC
	// policies collect on disk (never in reads) until a GC pass.
	NewRow bool
	// DueKey, when not "", is the row of the page's due entry (see
	// due.go), written with DueEntry before the mark.
	DueKey   string
	DueEntry crawlstore.Entry
}

// orderedBulk is a Table whose ApplyBulk commits rows in the order given
// (the embedded store's, see bigtable.Table.OrderedBulk).
type orderedBulk interface{ OrderedBulk() bool }

// Save stores a fetch and what it produced so that a crash at any moment
// loses nothing: the page's row (and the redirect source's) first, then
// its anchors and discovered URLs, and only then the done or failed mark.
// A crash before the mark leaves the page queued, to be fetched again.
//
// On the embedded store, whose ApplyBulk commits rows in the order given
// (all rows of one call in one transaction, up to its size), everything
// goes in one bulk call in that order: one commit per page instead of
// three, shared with the saves of other pages that arrive while one is
// being written (group commit, see group.go); Save returns once its own
// rows are committed. Elsewhere (Cloud Bigtable's MutateRows promises no
// order) the three steps are separate calls.
//
// It returns what became of the body and the prior state of each
// discovered URL, as RecordFetch and AddLinks do, and sets Frontier on each
// entry of f.Discovered it queued.
func (w *WebTable) Save(ctx context.Context, f *Fetched) (Stored, []crawlstore.State, error) {
	if err := checkFetched(f); err != nil {
		return NoBody, nil, err
	}
	if o, ok := w.tbl.(orderedBulk); !ok || !o.OrderedBulk() {
		return w.saveInSteps(ctx, f)
	}
	var b batch
	key, srcKey, stored, err := w.addPageRows(ctx, &b, f)
	if err != nil {
		return NoBody, nil, err
	}
	// The links follow the page's row: a fresh index, so that a link to
	// the page or its source is its own entry, after them.
	links := batch{rows: b.rows, muts: b.muts}
	u, err := urlkey.Canonical(f.Page.Fetch.URL)
	if err != nil {
		return NoBody, nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	// NB: a page fetched for the first time (NewRow) has written no
	// anchor yet: its anchor columns in the rows it links to are new.
	prior, err := w.addLinkMutations(ctx, &links, urlkey.Referrer(u), f.Anchors, f.Discovered, f.AnchorTime, f.Requeue, f.NewRow)
	if err != nil {
		return NoBody, nil, err
	}
	if f.DueKey != "" {
		links.add(f.DueKey, frontierMutation(f.DueEntry))
	}
	addStates(&links, f, key, srcKey)
	counted := u // the URL fetched; for a redirect, doneMark parses Source's
	if f.Source != nil {
		counted = nil
	}
	if k, ok := doneMark(f, counted); ok {
		links.add(k, doneMutation())
	}
	// The page's frontier entry goes after the mark, in a bulk call of its
	// own (see applyGrouped).
	drop := entryDeletes(f.Frontier, entryDrop(f.Page.Fetch.Sitemap)) // frontier_sitemap.go
	if err := w.applyGrouped(ctx, &links, &drop); err != nil {
		return NoBody, nil, fmt.Errorf("webtable: storing %s: %w", f.Page.Fetch.URL, err)
	}
	return stored, prior, nil
}

// checkFetched refuses, before anything is written, a fetch whose page
// rows the store would refuse or whose Frontier names a row that is not a
// frontier entry.
func checkFetched(f *Fetched) error {
	// NB: the bulk write goes on after an entry fails: a page row the
	// store would refuse must be refused here, before anything is
	// written, or the page would be marked done without its content.
	for _, p := range []*Page{f.Source, f.Page} {
		if err := checkPage(p); err != nil {
			return err
		}
	}
	for _, k := range f.Frontier {
		// NB: a delete of anything else would lose a page.
		if _, _, err := ParseFrontierKey(k); err != nil {
			return fmt.Errorf("webtable: storing %s: %w", f.Page.Fetch.URL, err)
		}
	}
	return nil
}

// addPageRows adds to b the rows of f's pages, the redirect source's
// first: the row keys of Page and Source ("" without one), and what
// became of the body (a new version when it differs from the newest
// stored one, which is read unless f.NewRow).
func (w *WebTable) addPageRows(ctx context.Context, b *batch, f *Fetched) (key, srcKey string, stored Stored, err error) {
	if f.Source != nil {
		if srcKey, err = urlkey.Key(f.Source.Fetch.URL); err != nil {
			return "", "", NoBody, fmt.Errorf("webtable: storing fetch: %w", err)
		}
		b.add(srcKey, pageMutation(f.Source, "", rowCurrent))
	}
	key, err = urlkey.Key(f.Page.Fetch.URL)
	if err != nil {
		return "", "", NoBody, fmt.Errorf("webtable: storing fetch: %w", err)
	}
	stored, hexSum := NoBody, ""
	// NB: read, then write unconditionally: the crawler never stores one
	// URL twice at once, and one bulk call cannot hold a conditional
	// mutation.
	newest, form := "", rowFresh
	if !f.NewRow {
		form = rowCurrent
		if newest, err = w.rowFacts(ctx, key); err != nil {
			return "", "", NoBody, err
		}
	}
	if f.Page.KeepBody {
		stored, hexSum = Unchanged, f.Page.bodySum()
		if hexSum != newest {
			stored = NewVersion
		} else {
			hexSum = ""
		}
	}
	b.add(key, pageMutation(f.Page, hexSum, form))
	return key, srcKey, stored, nil
}

// addStates adds to links the frontier state f ends in, on the row of
// Page (key) and of Source (srcKey). A row queued as new (f.NewRow) holds
// one state, queued at FrontierTime: it is replaced as a known cell.
func addStates(links *batch, f *Fetched, key, srcKey string) {
	for _, p := range []*Page{f.Source, f.Page} {
		if p == nil {
			continue
		}
		k := key
		if p == f.Source {
			k = srcKey
		}
		m := links.add(k, bigtable.NewMutation())
		if p == f.Page && f.NewRow {
			// NB: a row queued as new holds one state, queued at
			// FrontierTime: deleted as a known cell, nothing to prune.
			m.DeleteOnlyVersion(FamilyFetch, colState, FrontierTime)
			m.SetOnlyVersion(FamilyFetch, colState, f.StateTime, []byte(f.State.String()))
		} else {
			m.Set(FamilyFetch, colState, f.StateTime, []byte(f.State.String()))
		}
	}
}

// MaxBody is the largest body a page may keep, in bytes: what one cell
// holds (100 MiB). A crawl's body limit must not exceed it.
const MaxBody = bigtable.MaxValueSize

// checkPage refuses a page whose row the store would refuse for its size:
// a body or headers longer than a cell holds.
func checkPage(p *Page) error {
	switch {
	case p == nil:
		return nil
	case p.KeepBody && len(p.Body) > MaxBody:
		return fmt.Errorf("webtable: storing %s: a body of %d bytes, more than a cell holds (%d, MaxBody): %w", p.Fetch.URL, len(p.Body), MaxBody, bigtable.ErrValueTooLarge)
	case len(p.Rendered) > MaxBody || len(p.Screenshot) > MaxBody:
		return fmt.Errorf("webtable: storing %s: a rendered page of %d bytes or a screenshot of %d, more than a cell holds (%d, MaxBody): %w", p.Fetch.URL, len(p.Rendered), len(p.Screenshot), MaxBody, bigtable.ErrValueTooLarge)
	case len(p.Headers) > MaxBody:
		return fmt.Errorf("webtable: storing %s: headers of %d bytes, more than a cell holds (%d): %w", p.Fetch.URL, len(p.Headers), MaxBody, bigtable.ErrValueTooLarge)
	}
	return nil
}

// doneMark is the row that counts a page marked done for its host (the
// host of the URL fetched, Source's for a redirect): see HostPages. u,
// when not nil, is the canonical form of that URL.
func doneMark(f *Fetched, u *url.URL) (string, bool) {
	if f.State != crawlstore.StateDone {
		return "", false
	}
	if u == nil {
		p := f.Page
		if f.Source != nil {
			p = f.Source
		}
		var err error
		if u, err = urlkey.Canonical(p.Fetch.URL); err != nil {
			return "", false
		}
	}
	return hostDoneKey(u.Host, urlkey.KeyOf(u)), true
}

// doneMutation is the write of a done mark.
//
// NB: a mark's column is only ever written at FrontierTime: nothing to
// prune.
func doneMutation() *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.SetOnlyVersion(FamilyFetch, colState, FrontierTime, []byte(crawlstore.StateDone.String()))
	return m
}

// saveInSteps is Save as three calls, for stores whose bulk writes promise
// no order.
func (w *WebTable) saveInSteps(ctx context.Context, f *Fetched) (Stored, []crawlstore.State, error) {
	if f.Source != nil {
		if _, err := w.RecordFetch(ctx, f.Source); err != nil {
			return NoBody, nil, err
		}
	}
	stored, err := w.RecordFetch(ctx, f.Page)
	if err != nil {
		return NoBody, nil, err
	}
	u, err := urlkey.Canonical(f.Page.Fetch.URL)
	if err != nil {
		return NoBody, nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	prior, err := w.addLinks(ctx, urlkey.Referrer(u), f.Anchors, f.Discovered, f.AnchorTime, f.Requeue)
	if err != nil {
		return NoBody, nil, err
	}
	if f.DueKey != "" {
		if err := w.tbl.Apply(ctx, f.DueKey, frontierMutation(f.DueEntry)); err != nil {
			return NoBody, nil, fmt.Errorf("webtable: storing when %s is due: %w", f.Page.Fetch.URL, err)
		}
	}
	for _, p := range []*Page{f.Source, f.Page} {
		if p != nil {
			if err := w.SetState(ctx, p.Fetch.URL, f.State, f.StateTime); err != nil {
				return NoBody, nil, err
			}
		}
	}
	if k, ok := doneMark(f, nil); ok {
		if err := w.tbl.Apply(ctx, k, doneMutation()); err != nil {
			return NoBody, nil, fmt.Errorf("webtable: counting %s done: %w", f.Page.Fetch.URL, err)
		}
	}
	if len(f.Frontier) > 0 {
		// NB: a row delete, which Cloud Bigtable does without a read.
		b := entryDeletes(f.Frontier, deleteRow)
		if err := w.applyBatch(ctx, &b); err != nil {
			return NoBody, nil, fmt.Errorf("webtable: deleting the frontier entry of %s: %w", f.Page.Fetch.URL, err)
		}
	}
	return stored, prior, nil
}
