package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// store adapts the WebTable to the crawler's Store interface: the crawler
// speaks its own types, the WebTable its schema, and this is the only place
// that knows both.
type store struct {
	w *webtable.WebTable
	// now is the clock of frontier state changes (tests may replace it).
	now func() time.Time
	// cutoff, when set, is cancelled a grace period after the crawl is
	// interrupted, and ends every store call still running (cutOffAfter).
	cutoff context.Context
	// fresh holds the rows this store queued as new and has not stored a
	// fetch in since: no read needed to know they hold none.
	fresh *freshRows
}

var (
	_ crawler.Store          = (*store)(nil)
	_ crawler.FrontierHinter = (*store)(nil)
	_ crawler.HostFeed       = (*store)(nil)
)

func newStore(w *webtable.WebTable) *store {
	return &store{w: w, now: time.Now, fresh: newFreshRows(maxFreshRows)}
}

// cutOffAfter makes every store call end at the latest grace after
// interrupt is cancelled. NB: the crawler stores the pages in flight after
// Ctrl-C with a context that is never cancelled, so that they are saved;
// without a cut-off a hung store would hold the program for ever. The
// returned function releases the timer; call it when the crawl is over.
func (s *store) cutOffAfter(interrupt context.Context, grace time.Duration) (release func()) {
	cutoff, cut := context.WithCancelCause(context.Background())
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(interrupt, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, func() {
			cut(fmt.Errorf("the store did not answer within %v of the interrupt", grace))
		})
	})
	s.cutoff = cutoff
	return func() {
		// NB: cutoff itself stays as it is: a call after release is not
		// cut off by it.
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
	}
}

// bound returns ctx, ended when the cut-off comes, and the function to
// call with the store call's error when it returns: it names the cut-off
// as the cause of an error it brought about.
func (s *store) bound(ctx context.Context) (context.Context, func(error) error) {
	if s.cutoff == nil {
		return ctx, func(err error) error { return err }
	}
	if ctx.Done() == nil {
		// NB: the crawler's store calls come with a context that is never
		// cancelled (context.WithoutCancel), so the cut-off alone can end
		// them: no context to derive and no callback to register per call.
		return cutOnly{ctx, s.cutoff}, func(err error) error {
			if err != nil && s.cutoff.Err() != nil {
				return fmt.Errorf("%v: %v", context.Cause(s.cutoff), err)
			}
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.cutoff, func() { cancel(context.Cause(s.cutoff)) })
	return ctx, func(err error) error {
		stop()
		cut := ctx.Err() != nil && s.cutoff.Err() != nil
		cancel(nil)
		if err != nil && cut {
			// NB: %v, not %w: a cut-off call is a store failure, not the
			// crawl being stopped, and must not read as context.Canceled.
			return fmt.Errorf("%v: %v", context.Cause(ctx), err)
		}
		return err
	}
}

// flushDeletes writes the frontier deletes that the last saves left for a
// next group (webtable.WebTable.FlushDeletes), within the cut-off: after
// it, closing the store writes nothing that a hung store could hold for
// ever.
func (s *store) flushDeletes() error {
	ctx, done := s.bound(context.Background())
	return done(s.w.FlushDeletes(ctx))
}

// cutOnly is a context that is never cancelled (its embedded one) made to
// end with cut.
type cutOnly struct {
	context.Context
	cut context.Context
}

func (c cutOnly) Done() <-chan struct{} { return c.cut.Done() }
func (c cutOnly) Err() error            { return c.cut.Err() }

// Hosts implements crawler.Store: a seek per host over the buckets of the
// shard.
func (s *store) Hosts(ctx context.Context, shard, shards int, fn func(string) bool) (err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	lo, hi := urlkey.BucketRange(shard, shards)
	return s.w.FrontierHosts(ctx, lo, hi, fn, nil)
}

// HostPages implements crawler.Store.
func (s *store) HostPages(ctx context.Context, host string, limit int) (_ int, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.HostPages(ctx, host, limit)
}

// Next implements crawler.Store.
func (s *store) Next(ctx context.Context, host, from string, n int) (_ crawler.FrontierBatch, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	// NB: a row this process queued as new and has not stored since is
	// still to be fetched: its state is not read.
	p, err := s.w.FrontierNextKnowing(ctx, host, from, n, s.fresh.fresh)
	if err != nil {
		return crawler.FrontierBatch{}, err
	}
	b := crawler.FrontierBatch{Next: p.Next, More: p.More, Entries: make([]crawler.Entry, len(p.Entries))}
	for i, e := range p.Entries {
		b.Entries[i] = crawler.Entry{URL: e.URL, Key: e.Key, Depth: e.Depth, Chain: e.Chain, Frontier: e.Frontier}
	}
	for _, bad := range p.Bad {
		b.Bad = append(b.Bad, bad.Error())
	}
	return b, nil
}

// FrontierHint implements crawler.FrontierHinter: the hint the WebTable
// keeps of where host's live entries start.
func (s *store) FrontierHint(ctx context.Context, host string) (_ string, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.FrontierHint(ctx, host)
}

// FedHosts implements crawler.HostFeed: the hosts in the shard's inbox
// (webtable.WebTable.SetShard).
func (s *store) FedHosts(ctx context.Context, shard, shards int, fn func(host string)) (err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.FedHosts(ctx, shard, shards, fn)
}

// LastFetch implements crawler.Store: only a fetch that was made counts,
// not a frontier entry.
func (s *store) LastFetch(ctx context.Context, url string) (_ crawler.Fetch, _ bool, err error) {
	if k, kerr := urlkey.Key(url); kerr == nil && s.fresh.fresh(k) {
		return crawler.Fetch{}, false, nil // queued here as new, not fetched since
	}
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	f, ok, err := s.w.LastFetch(ctx, url)
	if err != nil || !ok || !f.Fetched() {
		return crawler.Fetch{}, false, err
	}
	return crawler.Fetch{
		URL:          f.URL,
		State:        crawler.ParseState(string(f.State)),
		Depth:        f.Depth,
		Status:       f.Status,
		Time:         f.Time,
		ETag:         f.ETag,
		LastModified: f.LastModified,
		SHA256:       f.SHA256,
		MediaType:    f.MIME,
		Charset:      f.Charset,
	}, true, nil
}

// Content implements crawler.Store.
func (s *store) Content(ctx context.Context, url string) (_ []byte, _ bool, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.Content(ctx, url)
}

// Enqueue implements crawler.Store.
func (s *store) Enqueue(ctx context.Context, entries []crawler.Entry, rq crawler.Requeue) (_ []crawler.State, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	es := toEntries(entries)
	since := s.fresh.start()
	states, err := s.w.EnqueueAgain(ctx, es, webtable.Requeue(rq))
	for i := range es {
		entries[i].Frontier = es[i].Frontier
	}
	if err == nil {
		s.fresh.add(since, newlyQueued(es, states))
	}
	return toStates(states), err
}

// SavePage implements crawler.Store: the page's rows, then its links and
// discovered entries, then its state, in that order (webtable.Save).
func (s *store) SavePage(ctx context.Context, p *crawler.Page) (_ crawler.SaveResult, err error) {
	// The rows this save writes a fetch record to stop being fresh now,
	// and stay out of the set until it is over (see freshRows).
	rows := []string{p.Key}
	if p.Key == "" {
		// NB: the crawler sets it; a caller that did not still must not
		// leave the row fresh.
		k, kerr := urlkey.Key(p.URL)
		if kerr != nil {
			return crawler.SaveResult{}, fmt.Errorf("storing %s: %w", p.URL, kerr)
		}
		rows[0] = k
	}
	if p.Redirected {
		if k, kerr := urlkey.Key(p.FinalURL); kerr == nil {
			rows = append(rows, k)
		}
	}
	fresh := s.fresh.saveStarts(rows...) && !p.Redirected
	defer s.fresh.saveEnds(rows...)
	since := s.fresh.start()
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	record := webtable.Fetch{
		URL:          p.FinalURL,
		Status:       p.Status,
		Time:         p.Time,
		Length:       p.Length,
		Charset:      p.Charset,
		ETag:         p.ETag,
		LastModified: p.LastModified,
		Error:        p.Err,
		Truncated:    p.Truncated,
		Depth:        p.Depth,
		Links:        p.LinksFound,
		LinksKept:    len(p.Links),
		Rendered:     p.Rendered != nil,
		RenderTime:   p.RenderTime,
		// A redirect the crawler did not follow (its target is fetched on
		// its own) is recorded on the row that answered.
		Redirect: p.Location,
	}
	if record.URL == "" {
		record.URL = p.URL
	}
	f := &webtable.Fetched{
		// The crawler's hash of the body, not computed again.
		Page: &webtable.Page{Fetch: record, MIME: p.MediaType, KeepBody: p.Body != nil, Body: p.Body, SHA256: p.SHA256, Headers: p.Header,
			Rendered: p.Rendered, Screenshot: p.Screenshot},
		Discovered: toEntries(p.Discovered),
		AnchorTime: webtable.TimestampOf(p.Time).TruncateToMilliseconds(),
		State:      webtable.State(p.State().String()),
		StateTime:  webtable.TimestampOf(s.now()).TruncateToMilliseconds(),
		Requeue:    webtable.Requeue(p.Requeue),
		// A row queued here as new and not stored since holds no content:
		// no need to read its newest version.
		NewRow: fresh,
	}
	if p.Frontier != "" {
		f.Frontier = []string{p.Frontier}
	}
	if p.Redirected {
		// The source row records only the fetch and where it led.
		f.Source = &webtable.Page{Fetch: webtable.Fetch{URL: p.URL, Status: p.Status, Time: p.Time, Redirect: p.FinalURL, Depth: p.Depth, Error: p.Err}}
	}
	f.Anchors = make([]webtable.Anchor, len(p.Links))
	for i, l := range p.Links {
		f.Anchors[i] = webtable.Anchor{URL: l.URL, Text: l.Text}
	}
	stored, states, err := s.w.Save(ctx, f)
	if err != nil {
		return crawler.SaveResult{}, err
	}
	for i := range f.Discovered {
		p.Discovered[i].Frontier = f.Discovered[i].Frontier
	}
	s.fresh.add(since, newlyQueued(f.Discovered, states))
	return crawler.SaveResult{States: toStates(states), NewVersion: stored == webtable.NewVersion}, nil
}

func toEntries(es []crawler.Entry) []webtable.Entry {
	out := make([]webtable.Entry, len(es))
	for i, e := range es {
		out[i] = webtable.Entry{URL: e.URL, Key: e.Key, Depth: e.Depth, Chain: e.Chain}
	}
	return out
}

// newlyQueued returns the keys of the entries a call queued that the table
// did not know before it (state unknown, Frontier set).
func newlyQueued(es []webtable.Entry, states []webtable.State) []string {
	var keys []string
	for i, e := range es {
		if i < len(states) && states[i] == webtable.StateUnknown && e.Frontier != "" && e.Key != "" {
			keys = append(keys, e.Key)
		}
	}
	return keys
}

func toStates(ss []webtable.State) []crawler.State {
	out := make([]crawler.State, len(ss))
	for i, s := range ss {
		out[i] = crawler.ParseState(string(s))
	}
	return out
}
