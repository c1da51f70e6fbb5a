package crawlertest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// MemStore is an in-memory [crawlstore.Store], the reference implementation of the
// contract, used by the crawler's tests and by anyone who wants to crawl
// without a database. Rows are keyed by [urlkey.KeyOf]. The zero value is
// not usable; call NewMemStore. It is safe for concurrent use. It is a
// [crawlstore.DueKeeper] too (memdue.go), so that tests of continuous
// crawls need no WebTable.
type MemStore struct {
	mu       sync.Mutex
	rows     map[string]*MemRow
	frontier map[string]*hostQueue // host -> entries in order of Frontier
	nextPos  uint64
	failIn   int // SavePage calls left before failing; <0: never
	failErr  error
	saves    int
	versions int // content versions kept per row

	privateSeeds []string // see PrivateSeeder

	due    map[string]memDue      // row key -> due entry, see memdue.go
	queued crawlstore.QueueSignal // fired at each entry queued

	sitemaps map[string]crawlstore.SitemapSchedule // URL -> schedule, see memsitemap.go
}

// MemRow is what a MemStore holds for one row key.
type MemRow struct {
	URL       string // fetch URL with scheme (final URL for a redirect target)
	State     crawlstore.State
	Depth     int
	Fetch     crawlstore.Fetch     // last fetch
	MediaType string               // last media type
	Redirect  string               // redirect target of the last fetch, "" if none
	Err       string               // error of the last fetch, "" after a success
	ErrKind   crawlstore.ErrorKind // kind of that error
	Truncated bool
	// Versions holds the stored contents, newest first, at most 3.
	Versions []MemVersion
	// Anchors maps each referring page (canonical URL) to its link text.
	Anchors map[string]string
}

// MemVersion is one stored content version.
type MemVersion struct {
	Time   time.Time
	SHA256 string
	Status int
	Body   []byte
}

// NewMemStore returns an empty MemStore that keeps 3 content versions per row.
func NewMemStore() *MemStore {
	return &MemStore{rows: make(map[string]*MemRow), frontier: make(map[string]*hostQueue), failIn: -1, versions: 3, due: map[string]memDue{}}
}

// FailAfter makes the SavePage call after the next n succeed fail with err
// (and every later one). For tests of store failures.
func (m *MemStore) FailAfter(n int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failIn, m.failErr = n, err
}

// Saves returns the number of successful SavePage calls.
func (m *MemStore) Saves() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saves
}

// Row returns a copy of the row of rawURL; ok is false when there is none.
func (m *MemStore) Row(rawURL string) (r MemRow, ok bool) {
	key, err := urlkey.Key(rawURL)
	if err != nil {
		return MemRow{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	row := m.rows[key]
	if row == nil {
		return MemRow{}, false
	}
	return row.clone(), true
}

// Keys returns the row keys, sorted.
func (m *MemStore) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Rows returns a copy of every row by key.
func (m *MemStore) Rows() map[string]MemRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]MemRow, len(m.rows))
	for k, r := range m.rows {
		out[k] = r.clone()
	}
	return out
}

func (r *MemRow) clone() MemRow {
	c := *r
	c.Versions = slices.Clone(r.Versions)
	c.Anchors = make(map[string]string, len(r.Anchors))
	for k, v := range r.Anchors {
		c.Anchors[k] = v
	}
	return c
}

func (m *MemStore) row(u *url.URL) *MemRow {
	key := urlkey.KeyOf(u)
	r := m.rows[key]
	if r == nil {
		r = &MemRow{URL: u.String(), Anchors: map[string]string{}}
		m.rows[key] = r
	}
	return r
}

// Hosts implements Store.
func (m *MemStore) Hosts(ctx context.Context, shard, shards int, fn func(host string) bool) error {
	m.mu.Lock()
	var hosts []string
	for h, q := range m.frontier {
		if q.len() > 0 && crawlstore.ShardOf(h, shards) == shard {
			hosts = append(hosts, h)
		}
	}
	m.mu.Unlock()
	slices.Sort(hosts)
	for _, h := range hosts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !fn(h) {
			return nil
		}
	}
	return nil
}

// Next implements Store.
func (m *MemStore) Next(ctx context.Context, host, from string, n int) (crawlstore.FrontierBatch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := crawlstore.FrontierBatch{Next: from}
	q := m.frontier[host]
	if q == nil {
		return b, nil
	}
	var stale []string
	q.all(from, func(e crawlstore.Entry) bool {
		if len(b.Entries)+len(stale) == n {
			b.More = true
			return false
		}
		b.Next = e.Frontier + "\x00"
		if r := m.rows[e.Key]; r != nil && (r.State == crawlstore.StateDone || r.State == crawlstore.StateFailed) {
			stale = append(stale, e.Frontier)
		} else {
			b.Entries = append(b.Entries, e)
		}
		return true
	})
	for _, pos := range stale {
		q.delete(pos)
	}
	return b, nil
}

// HostPages implements Store: the rows of host whose last state is done
// (a page counted once however often it was fetched).
func (m *MemStore) HostPages(ctx context.Context, host string, limit int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.rows {
		if r.State == crawlstore.StateDone && crawlstore.HostOf(r.URL) == host && r.Fetch.Time.IsZero() == false {
			n++
		}
	}
	return min(n, limit), nil
}

// Frontier returns the URLs of every frontier entry, by host then order.
func (m *MemStore) Frontier() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, q := range m.frontier {
		q.all("", func(e crawlstore.Entry) bool {
			out = append(out, e.URL)
			return true
		})
	}
	slices.Sort(out)
	return out
}

// deleteEntry removes the entry at pos of host. Callers hold m.mu.
func (m *MemStore) deleteEntry(host, pos string) {
	if q := m.frontier[host]; q != nil {
		q.delete(pos)
	}
}

// LastFetch implements Store.
func (m *MemStore) LastFetch(ctx context.Context, key string) (crawlstore.Fetch, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rows[key]
	if r == nil || r.Fetch.Time.IsZero() {
		return crawlstore.Fetch{}, false, nil
	}
	f := r.Fetch
	f.State = r.State
	return f, true, nil
}

// Content implements Store.
func (m *MemStore) Content(ctx context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rows[key]
	if r == nil || len(r.Versions) == 0 {
		return nil, false, nil
	}
	return slices.Clone(r.Versions[0].Body), true, nil
}

// Enqueue implements Store.
func (m *MemStore) Enqueue(ctx context.Context, entries []crawlstore.Entry, rq crawlstore.Requeue) ([]crawlstore.State, error) {
	us := make([]*url.URL, len(entries))
	for i, e := range entries {
		u, err := urlkey.Canonical(e.URL)
		if err != nil {
			return nil, fmt.Errorf("crawler: memstore: %w", err)
		}
		us[i] = u
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.enqueueLocked(entries, us, rq), nil
}

func (m *MemStore) enqueueLocked(entries []crawlstore.Entry, us []*url.URL, rq crawlstore.Requeue) []crawlstore.State {
	states := make([]crawlstore.State, len(entries))
	for i := range entries {
		e := &entries[i]
		r := m.row(us[i])
		states[i] = r.State
		again := (r.State == crawlstore.StateFailed && rq.Failed || r.State == crawlstore.StateDone && rq.Done) && r.Fetch.Time.Before(rq.Before)
		if r.State != crawlstore.StateNone && !again {
			continue
		}
		if r.State == crawlstore.StateNone {
			r.Depth = e.Depth
			r.URL = us[i].String()
		}
		r.State = crawlstore.StateQueued
		e.URL, e.Key = us[i].String(), urlkey.KeyOf(us[i])
		m.nextPos++
		e.Frontier = fmt.Sprintf("%016x", m.nextPos)
		host := us[i].Host
		q := m.frontier[host]
		if q == nil {
			q = &hostQueue{}
			m.frontier[host] = q
		}
		q.push(crawlstore.Entry{URL: e.URL, Key: e.Key, Depth: e.Depth, Chain: e.Chain, Frontier: e.Frontier, Sitemap: e.Sitemap})
		m.queued.Fire()
	}
	return states
}

// errMemFail marks an injected failure.
var errMemFail = errors.New("crawler: memstore: injected failure")

// SavePage implements Store.
func (m *MemStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	src, dst, links, disc, err := pageURLs(p)
	if err != nil {
		return crawlstore.SaveResult{}, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failIn == 0 {
		return crawlstore.SaveResult{}, fmt.Errorf("%w: %w", errMemFail, m.failErr)
	}
	if m.failIn > 0 {
		m.failIn--
	}
	m.saves++

	// 1. The page's row (and the target's row for a redirect).
	var res crawlstore.SaveResult
	row := m.writeFetch(p, src, dst, &res)
	// 2. Anchors and discovered entries.
	for i, l := range p.Links {
		m.row(links[i]).Anchors[p.FinalURL] = l.Text
	}
	res.States = m.enqueueLocked(p.Discovered, disc, p.Requeue)
	m.keepDue(p, src) // memdue.go
	// 3. Done, and the page's frontier entry gone.
	if p.Frontier != "" {
		m.deleteEntry(src.Host, p.Frontier)
	}
	row.State = p.State()
	if p.Redirected {
		m.row(src).State = p.State()
		if row.Depth == 0 || p.Depth < row.Depth {
			row.Depth = p.Depth
		}
	} else {
		row.Depth = p.Depth
	}
	return res, nil
}

// pageURLs canonicalises the URLs of p: its own (src), the one its
// content is stored under (dst: its final URL after a redirect, else
// src), its links' and its discovered entries'.
func pageURLs(p *crawlstore.Page) (src, dst *url.URL, links, disc []*url.URL, err error) {
	src, err = urlkey.Canonical(p.URL)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("crawler: memstore: %w", err)
	}
	dst = src
	if p.Redirected {
		if dst, err = urlkey.Canonical(p.FinalURL); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("crawler: memstore: %w", err)
		}
	}
	links = make([]*url.URL, len(p.Links))
	for i, l := range p.Links {
		if links[i], err = urlkey.Canonical(l.URL); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("crawler: memstore: link: %w", err)
		}
	}
	disc = make([]*url.URL, len(p.Discovered))
	for i, e := range p.Discovered {
		if disc[i], err = urlkey.Canonical(e.URL); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("crawler: memstore: discovered: %w", err)
		}
	}
	return src, dst, links, disc, nil
}

// writeFetch records p's fetch in the row of dst (and, for a redirect,
// in the row of src), keeping a new content version when the body
// changed (res.NewVersion). It returns dst's row. Callers hold m.mu.
func (m *MemStore) writeFetch(p *crawlstore.Page, src, dst *url.URL, res *crawlstore.SaveResult) *MemRow {
	fetch := crawlstore.Fetch{
		URL: p.FinalURL, Depth: p.Depth, Status: p.Status, Time: p.Time,
		ETag: p.ETag, LastModified: p.LastModified, MediaType: p.MediaType, Charset: p.Charset,
		Sitemap: p.Sitemap,
	}
	if !p.Redirected {
		fetch.Change = p.Change
	}
	row := m.row(dst)
	prevSHA := row.Fetch.SHA256
	fetch.SHA256 = prevSHA
	if p.Body != nil && p.SHA256 != prevSHA {
		row.Versions = append([]MemVersion{{Time: p.Time, SHA256: p.SHA256, Status: p.Status, Body: slices.Clone(p.Body)}}, row.Versions...)
		if len(row.Versions) > m.versions {
			row.Versions = row.Versions[:m.versions]
		}
		fetch.SHA256 = p.SHA256
		res.NewVersion = true
	}
	row.Fetch = fetch
	row.URL = p.FinalURL
	row.Err, row.ErrKind, row.Truncated, row.Redirect = p.Err, p.ErrKind, p.Truncated, p.Location
	if p.MediaType != "" || p.Err == "" {
		row.MediaType = p.MediaType
	}
	if p.Redirected {
		s := m.row(src)
		s.Fetch = crawlstore.Fetch{URL: p.URL, Depth: p.Depth, Status: p.Status, Time: p.Time, SHA256: s.Fetch.SHA256, Change: p.Change}
		s.Redirect = p.FinalURL
		s.Err, s.ErrKind = p.Err, p.ErrKind
	}
	return row
}

// PrivateSeeds implements PrivateSeeder.
func (m *MemStore) PrivateSeeds(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.privateSeeds), nil
}

// AddPrivateSeeds implements PrivateSeeder.
func (m *MemStore) AddPrivateSeeds(ctx context.Context, addrs []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.privateSeeds = append(m.privateSeeds, addrs...)
	return nil
}
