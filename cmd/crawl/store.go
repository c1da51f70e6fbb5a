package main

import (
	"context"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawler"
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

// Queued implements crawler.Store.
func (s *store) Queued(ctx context.Context, fn func(crawler.Entry) bool) error {
	return s.w.Queued(ctx, func(e webtable.Entry) bool {
		return fn(crawler.Entry{URL: e.URL, Depth: e.Depth})
	})
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
func (s *store) Enqueue(ctx context.Context, entries []crawler.Entry) ([]crawler.State, error) {
	states, err := s.w.Enqueue(ctx, toEntries(entries))
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
		// A redirect the crawler did not follow (its target is fetched on
		// its own) is recorded on the row that answered.
		Redirect: p.Location,
	}
	if record.URL == "" {
		record.URL = p.URL
	}
	f := &webtable.Fetched{
		Page:       &webtable.Page{Fetch: record, MIME: p.MediaType, KeepBody: p.Body != nil, Body: p.Body, Headers: p.Header},
		Discovered: toEntries(p.Discovered),
		AnchorTime: bigtable.Time(p.Time).TruncateToMilliseconds(),
		State:      webtable.State(p.State().String()),
		StateTime:  bigtable.Time(s.now()).TruncateToMilliseconds(),
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
	return crawler.SaveResult{States: toStates(states), NewVersion: stored == webtable.NewVersion}, nil
}

func toEntries(es []crawler.Entry) []webtable.Entry {
	out := make([]webtable.Entry, len(es))
	for i, e := range es {
		out[i] = webtable.Entry{URL: e.URL, Depth: e.Depth}
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
