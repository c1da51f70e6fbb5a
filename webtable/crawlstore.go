package webtable

import (
	"context"
	"fmt"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// CrawlStore is the WebTable as the crawler's store: it implements
// [crawlstore.Store] and the optional powers the crawler asks for
// ([crawlstore.FrontierHinter], [crawlstore.HostFeed],
// [crawlstore.HoldRecorder], [crawlstore.PrivateSeeder]) over the schema
// of this package, speaking the crawler's types without converting them.
// It keeps in memory the rows it queued as new and has not stored a fetch
// in since (see freshRows), so that a crawl reads less; make one per
// crawling process with [WebTable.CrawlStore].
type CrawlStore struct {
	w *WebTable
	// now is the clock of frontier state changes (tests may replace it).
	now func() time.Time
	// fresh holds the rows this store queued as new and has not stored a
	// fetch in since: no read needed to know they hold none.
	fresh *freshRows
}

var (
	_ crawlstore.Store          = (*CrawlStore)(nil)
	_ crawlstore.FrontierHinter = (*CrawlStore)(nil)
	_ crawlstore.HostFeed       = (*CrawlStore)(nil)
	_ crawlstore.HoldRecorder   = (*CrawlStore)(nil)
	_ crawlstore.PrivateSeeder  = (*CrawlStore)(nil)
	_ crawlstore.DueKeeper      = (*CrawlStore)(nil)
	_ crawlstore.QueueWatcher   = (*CrawlStore)(nil)
)

// CrawlStore returns the crawler's store over w. Each call returns a new
// one with its own memory of fresh rows.
func (w *WebTable) CrawlStore() *CrawlStore {
	return &CrawlStore{w: w, now: time.Now, fresh: newFreshRows(maxFreshRows)}
}

// Hosts implements crawlstore.Store: a seek per host over the buckets of
// the shard.
func (s *CrawlStore) Hosts(ctx context.Context, shard, shards int, fn func(string) bool) error {
	lo, hi := urlkey.BucketRange(shard, shards)
	return s.w.FrontierHosts(ctx, lo, hi, fn, nil)
}

// HostPages implements crawlstore.Store.
func (s *CrawlStore) HostPages(ctx context.Context, host string, limit int) (int, error) {
	return s.w.HostPages(ctx, host, limit)
}

// Next implements crawlstore.Store.
func (s *CrawlStore) Next(ctx context.Context, host, from string, n int) (crawlstore.FrontierBatch, error) {
	// NB: a row this process queued as new and has not stored since is
	// still to be fetched: its state is not read.
	p, err := s.w.FrontierNext(ctx, host, from, n, s.fresh.fresh)
	if err != nil {
		return crawlstore.FrontierBatch{}, err
	}
	b := crawlstore.FrontierBatch{Next: p.Next, More: p.More, Entries: p.Entries}
	for _, bad := range p.Bad {
		b.Bad = append(b.Bad, bad.Error())
	}
	return b, nil
}

// FrontierHint implements crawlstore.FrontierHinter: the hint the
// WebTable keeps of where host's live entries start.
func (s *CrawlStore) FrontierHint(ctx context.Context, host string) (string, error) {
	return s.w.FrontierHint(ctx, host)
}

// FedHosts implements crawlstore.HostFeed: the hosts in the shard's inbox
// ([WebTable.SetShard]).
func (s *CrawlStore) FedHosts(ctx context.Context, shard, shards int, fn func(host string)) error {
	return s.w.FedHosts(ctx, shard, shards, fn)
}

// LastFetch implements crawlstore.Store: only a fetch that was made
// counts, not a frontier entry.
func (s *CrawlStore) LastFetch(ctx context.Context, key string) (crawlstore.Fetch, bool, error) {
	if s.fresh.fresh(key) {
		return crawlstore.Fetch{}, false, nil // queued here as new, not fetched since
	}
	f, ok, err := s.w.lastFetch(ctx, key)
	if err != nil || !ok || !f.Fetched() {
		return crawlstore.Fetch{}, false, err
	}
	return f, true, nil
}

// Content implements crawlstore.Store.
func (s *CrawlStore) Content(ctx context.Context, key string) ([]byte, bool, error) {
	return s.w.content(ctx, key)
}

// Enqueue implements crawlstore.Store.
func (s *CrawlStore) Enqueue(ctx context.Context, entries []crawlstore.Entry, rq crawlstore.Requeue) ([]crawlstore.State, error) {
	since := s.fresh.start()
	states, err := s.w.Enqueue(ctx, entries, rq)
	if err == nil {
		s.fresh.add(since, newlyQueued(entries, states))
		fireIfQueued(&s.w.queued, entries) // queued.go
	}
	return states, err
}

// SavePage implements crawlstore.Store: the page's rows, then its links
// and discovered entries, then its state, in that order ([WebTable.Save]).
func (s *CrawlStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	// The rows this save writes a fetch record to stop being fresh now,
	// and stay out of the set until it is over (see freshRows).
	rows := []string{p.Key}
	if p.Key == "" {
		// NB: the crawler sets it; a caller that did not still must not
		// leave the row fresh.
		k, kerr := urlkey.Key(p.URL)
		if kerr != nil {
			return crawlstore.SaveResult{}, fmt.Errorf("storing %s: %w", p.URL, kerr)
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
	// A row queued here as new and not stored since holds no content: no
	// need to read its newest version.
	f := fetchedOf(p, s.now(), fresh)
	stored, states, err := s.w.Save(ctx, f)
	if err != nil {
		return crawlstore.SaveResult{}, err
	}
	s.fresh.add(since, newlyQueued(f.Discovered, states))
	fireIfQueued(&s.w.queued, f.Discovered)
	return crawlstore.SaveResult{States: states, NewVersion: stored == NewVersion}, nil
}

// fetchedOf is what Save writes for the crawler's page p: its rows, the
// state it is marked with at now, and its links. newRow says p's row was
// queued as new and holds no fetch yet.
func fetchedOf(p *crawlstore.Page, now time.Time, newRow bool) *Fetched {
	record := crawlstore.Fetch{
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
		Sitemap:  p.Sitemap,
	}
	if !p.Redirected {
		record.Change = p.Change
	}
	if record.URL == "" {
		record.URL = p.URL
	}
	f := &Fetched{
		// The crawler's hash of the body, not computed again.
		Page: &Page{Fetch: record, MIME: p.MediaType, KeepBody: p.Body != nil, Body: p.Body, SHA256: p.SHA256, Headers: p.Header,
			Rendered: p.Rendered, Screenshot: p.Screenshot},
		Discovered: p.Discovered,
		AnchorTime: TimestampOf(p.Time).TruncateToMilliseconds(),
		State:      p.State(),
		StateTime:  TimestampOf(now).TruncateToMilliseconds(),
		Requeue:    p.Requeue,
		NewRow:     newRow,
	}
	if p.Frontier != "" {
		f.Frontier = []string{p.Frontier}
	}
	if p.Redirected {
		// The source row records only the fetch and where it led.
		f.Source = &Page{Fetch: crawlstore.Fetch{URL: p.URL, Status: p.Status, Time: p.Time, Redirect: p.FinalURL, Depth: p.Depth, Error: p.Err, Change: p.Change}}
	}
	f.DueKey, f.DueEntry = dueOf(p)
	f.Anchors = make([]Anchor, len(p.Links))
	for i, l := range p.Links {
		f.Anchors[i] = Anchor{URL: l.URL, Text: l.Text}
	}
	return f
}

// newlyQueued returns the keys of the entries a call queued that the table
// did not know before it (state unknown, Frontier set).
func newlyQueued(es []crawlstore.Entry, states []crawlstore.State) []string {
	var keys []string
	for i, e := range es {
		if i < len(states) && states[i] == crawlstore.StateNone && e.Frontier != "" && e.Key != "" {
			keys = append(keys, e.Key)
		}
	}
	return keys
}
