package main

import (
	"context"
	"time"

	"github.com/webtable/webtable/bigtable"
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
}

var _ crawler.Store = (*store)(nil)

func newStore(w *webtable.WebTable) *store { return &store{w: w, now: time.Now} }

// Hosts implements crawler.Store: a seek per host over the buckets of the
// shard.
func (s *store) Hosts(ctx context.Context, shard, shards int, fn func(string) bool) error {
	lo, hi := urlkey.BucketRange(shard, shards)
	return s.w.FrontierHosts(ctx, lo, hi, fn, nil)
}

// HostPages implements crawler.Store.
func (s *store) HostPages(ctx context.Context, host string, limit int) (int, error) {
	return s.w.HostPages(ctx, host, limit)
}

// Next implements crawler.Store.
func (s *store) Next(ctx context.Context, host, from string, n int) (crawler.FrontierBatch, error) {
	p, err := s.w.FrontierNext(ctx, host, from, n)
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

// LastFetch implements crawler.Store: only a fetch that was made counts,
// not a frontier entry.
func (s *store) LastFetch(ctx context.Context, url string) (crawler.Fetch, bool, error) {
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
func (s *store) Content(ctx context.Context, url string) ([]byte, bool, error) {
	return s.w.Content(ctx, url)
}

// Enqueue implements crawler.Store.
func (s *store) Enqueue(ctx context.Context, entries []crawler.Entry, rq crawler.Requeue) ([]crawler.State, error) {
	es := toEntries(entries)
	states, err := s.w.EnqueueAgain(ctx, es, webtable.Requeue(rq))
	for i := range es {
		entries[i].Frontier = es[i].Frontier
	}
	return toStates(states), err
}

// SavePage implements crawler.Store: the page's rows, then its links and
// discovered entries, then its state, in that order (webtable.Save).
func (s *store) SavePage(ctx context.Context, p *crawler.Page) (crawler.SaveResult, error) {
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
		// A redirect the crawler did not follow (its target is fetched on
		// its own) is recorded on the row that answered.
		Redirect: p.Location,
	}
	if record.URL == "" {
		record.URL = p.URL
	}
	f := &webtable.Fetched{
		// The crawler's hash of the body, not computed again.
		Page:       &webtable.Page{Fetch: record, MIME: p.MediaType, KeepBody: p.Body != nil, Body: p.Body, SHA256: p.SHA256},
		Discovered: toEntries(p.Discovered),
		AnchorTime: bigtable.Time(p.Time).TruncateToMilliseconds(),
		State:      webtable.State(p.State().String()),
		StateTime:  bigtable.Time(s.now()).TruncateToMilliseconds(),
		Requeue:    webtable.Requeue(p.Requeue),
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
	return crawler.SaveResult{States: toStates(states), NewVersion: stored == webtable.NewVersion}, nil
}

func toEntries(es []crawler.Entry) []webtable.Entry {
	out := make([]webtable.Entry, len(es))
	for i, e := range es {
		out[i] = webtable.Entry{URL: e.URL, Key: e.Key, Depth: e.Depth, Chain: e.Chain}
	}
	return out
}

func toStates(ss []webtable.State) []crawler.State {
	out := make([]crawler.State, len(ss))
	for i, s := range ss {
		out[i] = crawler.ParseState(string(s))
	}
	return out
}
