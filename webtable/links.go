package webtable

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/urlkey"
)

// Entry is a frontier entry: a URL to fetch and its distance from a seed.
type Entry struct {
	URL   string // full URL with scheme
	Depth int    // link hops from a seed
}

// Anchor is a link found on a page: its target and the link's text.
type Anchor struct {
	URL  string // the target, a full URL with scheme
	Text string // the link's text, whitespace collapsed ("" when it had none)
}

// FrontierTime is the timestamp of frontier entries (fetch:url, depth and
// state "queued" of a URL not yet fetched): 1 ms after the epoch, older
// than any fetch, so that a fetch record and a done or failed state always
// win over the entry whatever the clocks of the machines that wrote them.
// The time a URL was discovered is the timestamp of its anchor cells.
const FrontierTime bigtable.Timestamp = 1000

// Enqueue records entries in the frontier as queued, unless the table
// already knows them (queued, done or failed). It returns each entry's state
// before the call, in order; an entry listed twice is new only the first
// time (the second sees StateQueued).
func (w *WebTable) Enqueue(ctx context.Context, entries []Entry) ([]State, error) {
	return w.writeLinks(ctx, "", nil, entries, 0)
}

// AddLinks stores what the page at from links to: anchor:<referrer> with
// the link text, at time t, in the row of every anchor's target, and a
// queued frontier entry (at FrontierTime) for each discovered URL the table
// did not know. All rows go in one
// bulk write; each row's write is atomic. It returns each discovered
// entry's state before the call, as Enqueue does.
func (w *WebTable) AddLinks(ctx context.Context, from string, anchors []Anchor, discovered []Entry, t bigtable.Timestamp) ([]State, error) {
	u, err := urlkey.Canonical(from)
	if err != nil {
		return nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	return w.writeLinks(ctx, urlkey.Referrer(u), anchors, discovered, t)
}

func (w *WebTable) writeLinks(ctx context.Context, referrer string, anchors []Anchor, discovered []Entry, t bigtable.Timestamp) ([]State, error) {
	var b batch
	out, err := w.addLinkMutations(ctx, &b, referrer, anchors, discovered, t)
	if err != nil {
		return nil, err
	}
	if err := w.applyBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	return out, nil
}

// batch is a list of row mutations for one ApplyBulk. A row appears once
// (its mutations merged), except where add says otherwise.
type batch struct {
	rows  []string
	muts  []*bigtable.Mutation
	index map[string]int
}

// mutation returns the mutation of row key, creating it; first reports
// whether it is new.
func (b *batch) mutation(key string) (m *bigtable.Mutation, first bool) {
	if i, ok := b.index[key]; ok {
		return b.muts[i], false
	}
	if b.index == nil {
		b.index = map[string]int{}
	}
	b.index[key] = len(b.rows)
	return b.add(key, bigtable.NewMutation()), true
}

// add appends a mutation of row key as its own entry, after the others.
func (b *batch) add(key string, m *bigtable.Mutation) *bigtable.Mutation {
	b.rows = append(b.rows, key)
	b.muts = append(b.muts, m)
	return m
}

// applyBatch writes b in one bulk call; each row is atomic.
func (w *WebTable) applyBatch(ctx context.Context, b *batch) error {
	if len(b.rows) == 0 {
		return nil
	}
	errs, err := w.tbl.ApplyBulk(ctx, b.rows, b.muts)
	if err == nil {
		err = errors.Join(errs...)
	}
	if err != nil {
		return fmt.Errorf("bulk write of %d rows: %w", len(b.rows), err)
	}
	return nil
}

// addLinkMutations adds to b the anchors (at t) and the frontier entries
// of new URLs, and returns the prior state of each discovered entry.
func (w *WebTable) addLinkMutations(ctx context.Context, b *batch, referrer string, anchors []Anchor, discovered []Entry, t bigtable.Timestamp) ([]State, error) {
	if len(anchors) == 0 && len(discovered) == 0 {
		return nil, nil
	}
	anchorKeys := make([]string, len(anchors))
	for i, a := range anchors {
		k, err := urlkey.Key(a.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: storing link: %w", err)
		}
		anchorKeys[i] = k
	}
	entryKeys := make([]string, len(discovered))
	for i, e := range discovered {
		k, err := urlkey.Key(e.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: queueing: %w", err)
		}
		entryKeys[i] = k
	}
	prior, err := w.states(ctx, entryKeys)
	if err != nil {
		return nil, err
	}
	// One mutation per row, so that each row's anchor and frontier entry go
	// in together. The first text of a repeated target wins.
	if referrer != "" {
		seen := map[string]bool{}
		for i, a := range anchors {
			if k := anchorKeys[i]; !seen[k] {
				seen[k] = true
				m, _ := b.mutation(k)
				m.Set(FamilyAnchor, referrer, t, []byte(a.Text))
			}
		}
	}
	out := make([]State, len(discovered))
	queued := map[string]bool{}
	for i, e := range discovered {
		k := entryKeys[i]
		out[i] = prior[k]
		if queued[k] {
			out[i] = StateQueued
		}
		if out[i] != StateUnknown {
			continue
		}
		queued[k] = true
		m, _ := b.mutation(k)
		m.Set(FamilyFetch, colURL, FrontierTime, []byte(e.URL))
		m.Set(FamilyFetch, colDepth, FrontierTime, []byte(strconv.Itoa(e.Depth)))
		m.Set(FamilyFetch, colState, FrontierTime, []byte(StateQueued))
	}
	return out, nil
}

// states reads the frontier state of each row key; keys the table does not
// hold map to StateUnknown.
func (w *WebTable) states(ctx context.Context, keys []string) (map[string]State, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]State, len(sorted))
	err := w.tbl.ReadRows(ctx, bigtable.RowList(sorted), func(r bigtable.Row) bool {
		if items := r[FamilyFetch]; len(items) > 0 {
			out[r.Key()] = State(items[0].Value)
		}
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(column(FamilyFetch, colState), bigtable.LatestNFilter(1))))
	if err != nil {
		return nil, fmt.Errorf("webtable: reading frontier states: %w", err)
	}
	return out, nil
}

// Queued calls fn with every queued frontier entry, in row-key order, until
// fn returns false. It is how an interrupted crawl resumes.
func (w *WebTable) Queued(ctx context.Context, fn func(Entry) bool) error {
	var ferr error
	err := w.tbl.ReadRows(ctx, bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		f, err := parseFetch(r)
		if err != nil {
			ferr = err
			return false
		}
		if f.State != StateQueued {
			return true
		}
		if f.URL == "" {
			ferr = fmt.Errorf("webtable: queued row %q has no fetch:url", r.Key())
			return false
		}
		if _, err := url.Parse(f.URL); err != nil {
			ferr = fmt.Errorf("webtable: queued row %q: %w", r.Key(), err)
			return false
		}
		return fn(Entry{URL: f.URL, Depth: f.Depth})
	}, bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter(FamilyFetch),
		bigtable.ColumnFilter(colURL+"|"+colDepth+"|"+colState),
		bigtable.LatestNFilter(1),
	)))
	if err != nil {
		return fmt.Errorf("webtable: reading the frontier: %w", err)
	}
	return ferr
}
