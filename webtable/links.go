package webtable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// again reports whether a URL in state st, last fetched at t, is queued
// again.
func again(rq crawlstore.Requeue, st rowState) bool {
	switch st.state {
	case crawlstore.StateFailed:
		return rq.Failed && st.time.Before(rq.Before)
	case crawlstore.StateDone:
		return rq.Done && st.time.Before(rq.Before)
	}
	return false
}

// Anchor is a link found on a page: its target and the link's text.
type Anchor struct {
	URL  string // the target, a full URL with scheme
	Text string // the link's text, whitespace collapsed ("" when it had none)
}

// FrontierTime is the timestamp of frontier entries and of the state
// "queued" of a URL not yet fetched (its row's only fetch cell: the URL
// and depth are in the entry; rows queued before [FormatFrontierRows] also
// held fetch:url and fetch:depth at this time): 1 ms after the epoch, older
// than any fetch, so that a fetch record and a done or failed state always
// win over the entry whatever the clocks of the machines that wrote them.
// The time a URL was discovered is the timestamp of its anchor cells.
const FrontierTime bigtable.Timestamp = 1000

// Enqueue records entries in the frontier as queued, unless the table
// already knows them (queued, done or failed) and rq does not ask for them
// again (a failed URL in a later run, a done URL in a recrawl). It returns
// each entry's state before the call, in order; an entry listed twice is
// new only the first time (the second sees StateQueued). It sets Frontier
// on each entry it queued.
func (w *WebTable) Enqueue(ctx context.Context, entries []crawlstore.Entry, rq crawlstore.Requeue) ([]crawlstore.State, error) {
	var b batch
	out, err := w.addLinkMutations(ctx, &b, "", nil, entries, 0, rq, false)
	if err != nil {
		return nil, err
	}
	if err := w.applyLinkBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	return out, nil
}

// AddLinks stores what the page at from links to: anchor:<referrer> with
// the link text, at time t, in the row of every anchor's target, and a
// queued frontier entry (at FrontierTime) for each discovered URL the table
// did not know. All rows go in one
// bulk write; each row's write is atomic. It returns each discovered
// entry's state before the call, as Enqueue does.
func (w *WebTable) AddLinks(ctx context.Context, from string, anchors []Anchor, discovered []crawlstore.Entry, t bigtable.Timestamp) ([]crawlstore.State, error) {
	u, err := urlkey.Canonical(from)
	if err != nil {
		return nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	return w.addLinks(ctx, urlkey.Referrer(u), anchors, discovered, t, crawlstore.Requeue{})
}

func (w *WebTable) addLinks(ctx context.Context, referrer string, anchors []Anchor, discovered []crawlstore.Entry, t bigtable.Timestamp, rq crawlstore.Requeue) ([]crawlstore.State, error) {
	var b batch
	out, err := w.addLinkMutations(ctx, &b, referrer, anchors, discovered, t, rq, false)
	if err != nil {
		return nil, err
	}
	if err := w.applyLinkBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("webtable: storing links: %w", err)
	}
	return out, nil
}

// applyLinkBatch writes b. On a store whose bulk writes keep their order
// (the embedded one) that is one call; elsewhere the frontier entries go
// in a call of their own before the rows that say "queued", so that a
// crash never leaves a row queued without its entry (the opposite, an
// entry whose row is not yet queued, is read as a URL to fetch).
func (w *WebTable) applyLinkBatch(ctx context.Context, b *batch) error {
	if o, ok := w.tbl.(orderedBulk); (ok && o.OrderedBulk()) || len(b.rows) == 0 {
		return w.applyBatch(ctx, b)
	}
	var first, rest batch
	for i, k := range b.rows {
		if IsReserved(k) && !isInbox(k) { // NB: an inbox note after its entries
			first.add(k, b.muts[i])
		} else {
			rest.add(k, b.muts[i])
		}
	}
	if err := w.applyBatch(ctx, &first); err != nil {
		return err
	}
	return w.applyBatch(ctx, &rest)
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
//
// NB: the frontier entries are added before any row: on the embedded store
// a batch commits in order, and an entry without its queued row is
// harmless (it is fetched) where a queued row without its entry would
// never be.
//
// firstFetch says the referrer's page is fetched for the first time, so
// that its anchor columns are new (SetOnlyVersion).
func (w *WebTable) addLinkMutations(ctx context.Context, b *batch, referrer string, anchors []Anchor, discovered []crawlstore.Entry, t bigtable.Timestamp, rq crawlstore.Requeue, firstFetch bool) ([]crawlstore.State, error) {
	if len(anchors) == 0 && len(discovered) == 0 {
		return nil, nil
	}
	targetKeys, err := anchorKeys(anchors)
	if err != nil {
		return nil, err
	}
	entryKeys, hosts, err := canonicalEntries(discovered)
	if err != nil {
		return nil, err
	}
	prior, err := w.states(ctx, entryKeys)
	if err != nil {
		return nil, err
	}
	// One mutation per row, so that each row's anchor and frontier entry go
	// in together. The first text of a repeated target wins.
	var rows batch // after the entries, see above
	if referrer != "" {
		addAnchorCells(&rows, referrer, anchors, targetKeys, t, firstFetch)
	}
	out, queuedHosts := w.queueNew(b, &rows, discovered, entryKeys, hosts, prior, rq)
	// The anchors and queued rows, after the entries; a row with an anchor
	// and a queued state gets both in one mutation.
	for i, k := range rows.rows {
		b.add(k, rows.muts[i])
	}
	// And the notes of other shards' hosts, after their entries (inbox.go).
	w.addInbox(b, queuedHosts)
	return out, nil
}

// anchorKeys returns the row key of each anchor's target, in order.
func anchorKeys(anchors []Anchor) ([]string, error) {
	keys := make([]string, len(anchors))
	for i, a := range anchors {
		k, err := urlkey.Key(a.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: storing link: %w", err)
		}
		keys[i] = k
	}
	return keys, nil
}

// canonicalEntries puts each discovered entry's URL in canonical form
// and sets its Key when empty; it returns each entry's row key and host,
// in order.
func canonicalEntries(discovered []crawlstore.Entry) (keys, hosts []string, err error) {
	keys = make([]string, len(discovered))
	hosts = make([]string, len(discovered))
	for i := range discovered {
		e := &discovered[i]
		u, err := urlkey.Canonical(e.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("webtable: queueing: %w", err)
		}
		if e.Key == "" {
			e.Key = urlkey.KeyOf(u)
		}
		e.URL, keys[i], hosts[i] = u.String(), e.Key, u.Host
	}
	return keys, hosts, nil
}

// addAnchorCells adds to rows anchor:<referrer> with each anchor's text at
// t in the row of its target (keys, in order), the first text of a
// repeated target; as new columns (SetOnlyVersion) when firstFetch.
func addAnchorCells(rows *batch, referrer string, anchors []Anchor, keys []string, t bigtable.Timestamp, firstFetch bool) {
	seen := map[string]bool{}
	for i, a := range anchors {
		if k := keys[i]; !seen[k] {
			seen[k] = true
			m, _ := rows.mutation(k)
			if firstFetch {
				m.SetOnlyVersion(FamilyAnchor, referrer, t, []byte(a.Text))
			} else {
				m.Set(FamilyAnchor, referrer, t, []byte(a.Text))
			}
		}
	}
}

// queueNew adds to b a frontier entry, and to rows the state queued, for
// each discovered entry (row keys entryKeys, hosts hosts) that the table
// does not know (prior) or that rq asks for again, once each. It sets
// Frontier on each entry it queues and returns each entry's state before
// the call and the hosts of those it queued, in order.
func (w *WebTable) queueNew(b, rows *batch, discovered []crawlstore.Entry, entryKeys, hosts []string, prior map[string]rowState, rq crawlstore.Requeue) ([]crawlstore.State, []string) {
	out := make([]crawlstore.State, len(discovered))
	queued := map[string]bool{}
	var queuedHosts []string // for the inboxes
	for i := range discovered {
		e := &discovered[i]
		k := entryKeys[i]
		st := prior[k]
		out[i] = st.state
		if queued[k] {
			out[i] = crawlstore.StateQueued
			continue
		}
		if out[i] != crawlstore.StateNone && !again(rq, st) {
			continue
		}
		queued[k] = true
		queuedHosts = append(queuedHosts, hosts[i])
		e.Frontier = w.seq.key(hosts[i])
		b.add(e.Frontier, frontierMutation(*e))
		m, _ := rows.mutation(k)
		if out[i] == crawlstore.StateNone {
			// NB: the row has no state, so no fetch cells to prune. Its
			// URL and depth are in its frontier entry: the row says
			// queued and nothing more (two cells per link fewer).
			m.SetOnlyVersion(FamilyFetch, colState, FrontierTime, []byte(crawlstore.StateQueued.String()))
		} else {
			// Queued again: the state, newer than the last one, says so;
			// the fetch record stays.
			m.Set(FamilyFetch, colState, timestamp(time.Now()), []byte(crawlstore.StateQueued.String()))
		}
	}
	return out, queuedHosts
}

// rowState is the frontier state of a row and the time of its last fetch
// (zero when never fetched).
type rowState struct {
	state crawlstore.State
	time  time.Time
	due   time.Time // when the last fetch made the page due again (continuous crawls); zero: never
}

// states reads the frontier state and last fetch time of each row key, in
// one read; keys the table does not hold map to StateNone.
func (w *WebTable) states(ctx context.Context, keys []string) (map[string]rowState, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]rowState, len(sorted))
	err := w.tbl.ReadRows(ctx, bigtable.RowList(sorted), func(r bigtable.Row) bool {
		var st rowState
		// NB: a record that does not parse reads as fetched "long ago":
		// the URL is fetched again rather than never. The state is read
		// on its own: parseFetch stops at a record it cannot parse.
		f, _ := parseFetch(r)
		for _, it := range r[FamilyFetch] {
			if qualifier(it.Column) == colState {
				st.state = crawlstore.ParseState(string(it.Value))
			}
		}
		st.time, st.due = f.Time, f.Change.Due
		out[r.Key()] = st
		return true
	}, bigtable.RowFilter(fetchRecordFilter(true)))
	if err != nil {
		return nil, fmt.Errorf("webtable: reading frontier states: %w", err)
	}
	return out, nil
}

// Queued calls fn with every frontier entry whose page is still to be
// fetched, in key order (by host bucket, host, then order of discovery),
// until fn returns false. Entries that cannot be read, and entries of
// pages fetched since (see FrontierNext), are skipped.
func (w *WebTable) Queued(ctx context.Context, fn func(crawlstore.Entry) bool) error {
	var pending []crawlstore.Entry
	stop := false
	flush := func() error {
		keys := make([]string, len(pending))
		for i, e := range pending {
			keys[i] = e.Key
		}
		states, err := w.states(ctx, keys)
		if err != nil {
			return err
		}
		for _, e := range pending {
			if st := states[e.Key].state; st == crawlstore.StateDone || st == crawlstore.StateFailed {
				continue
			}
			if !fn(e) {
				stop = true
				break
			}
		}
		pending = pending[:0]
		return nil
	}
	var ferr error
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(FrontierPrefix), func(r bigtable.Row) bool {
		e, err := parseEntry(r)
		if err != nil {
			return true
		}
		if pending = append(pending, e); len(pending) >= frontierBatchRows {
			ferr = flush()
		}
		return ferr == nil && !stop
	}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1))))
	if err == nil && ferr == nil && !stop && len(pending) > 0 {
		ferr = flush()
	}
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("webtable: reading the frontier: %w", err)
	}
	return nil
}
