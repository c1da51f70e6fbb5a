package crawlertest

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// memDue is a MemStore's due entry of one page.
type memDue struct {
	entry crawlstore.Entry // URL, Key, Depth and Sitemap of the page
	host  string
	at    time.Time
}

// keepDue writes the due entry of the page p (URL u) when p.Change says
// when it is due again, replacing the page's last one: one due entry per
// page. Callers hold m.mu.
func (m *MemStore) keepDue(p *crawlstore.Page, u *url.URL) {
	if p.Change.Due.IsZero() {
		return
	}
	key := urlkey.KeyOf(u)
	m.due[key] = memDue{entry: crawlstore.Entry{URL: u.String(), Key: key, Depth: p.Depth, Sitemap: p.Sitemap}, host: u.Host, at: p.Change.Due}
}

// TakeDue implements crawlstore.DueKeeper: it queues the pages of the
// shard due at or before now, as Enqueue does with a Requeue of done and
// failed pages fetched before now, earliest first, and deletes their due
// entries.
func (m *MemStore) TakeDue(ctx context.Context, shard, shards int, now time.Time, n int) (int, time.Time, error) {
	if err := ctx.Err(); err != nil {
		return 0, time.Time{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var next time.Time
	var due []memDue
	for _, d := range m.due {
		if crawlstore.ShardOf(d.host, shards) != shard {
			continue
		}
		if d.at.After(now) {
			if next.IsZero() || d.at.Before(next) {
				next = d.at
			}
			continue
		}
		due = append(due, d)
	}
	sortDue(due)
	if len(due) > n {
		next = now // more are due
		due = due[:n]
	}
	entries := make([]crawlstore.Entry, len(due))
	us := make([]*url.URL, len(due))
	for i, d := range due {
		entries[i] = d.entry
		u, err := url.Parse(d.entry.URL)
		if err != nil {
			return 0, next, err // NB: keepDue stored a canonical URL
		}
		us[i] = u
		delete(m.due, d.entry.Key)
	}
	m.enqueueLocked(entries, us, crawlstore.Requeue{Failed: true, Done: true, Before: now})
	return len(due), next, nil
}

// sortDue sorts due entries by due time, then URL.
func sortDue(ds []memDue) {
	slices.SortFunc(ds, func(a, b memDue) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return strings.Compare(a.entry.URL, b.entry.URL)
	})
}

// Due returns the due time of each page that has a due entry, by row key.
func (m *MemStore) Due() map[string]time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]time.Time, len(m.due))
	for k, d := range m.due {
		out[k] = d.at
	}
	return out
}

// Queued implements crawlstore.QueueWatcher.
func (m *MemStore) Queued() <-chan struct{} { return m.queued.Wait() }
