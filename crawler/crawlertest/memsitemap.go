package crawlertest

import (
	"context"
	"fmt"
	"slices"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

var _ crawlstore.SitemapKeeper = (*MemStore)(nil)

// SaveSitemap implements crawlstore.SitemapKeeper.
func (m *MemStore) SaveSitemap(ctx context.Context, s crawlstore.SitemapSchedule) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.URL == "" || s.Host == "" {
		return fmt.Errorf("crawlertest: sitemap schedule of %q on host %q: want a URL and a host", s.URL, s.Host)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sitemaps == nil {
		m.sitemaps = map[string]crawlstore.SitemapSchedule{}
	}
	m.sitemaps[s.URL] = s
	return nil
}

// Sitemap implements crawlstore.SitemapKeeper.
func (m *MemStore) Sitemap(ctx context.Context, url string) (crawlstore.SitemapSchedule, bool, error) {
	if err := ctx.Err(); err != nil {
		return crawlstore.SitemapSchedule{}, false, err
	}
	u, err := urlkey.Canonical(url)
	if err != nil {
		return crawlstore.SitemapSchedule{}, false, fmt.Errorf("crawlertest: sitemap %q: %w", url, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sitemaps[u.String()]
	return s, ok, nil
}

// Sitemaps implements crawlstore.SitemapKeeper, in URL order.
func (m *MemStore) Sitemaps(ctx context.Context, shard, shards int, fn func(crawlstore.SitemapSchedule) bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	var mine []crawlstore.SitemapSchedule
	for _, s := range m.sitemaps {
		if shards <= 1 || crawlstore.ShardOf(s.Host, shards) == shard {
			mine = append(mine, s)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(mine, func(a, b crawlstore.SitemapSchedule) int {
		if a.URL < b.URL {
			return -1
		}
		if a.URL > b.URL {
			return 1
		}
		return 0
	})
	for _, s := range mine {
		if !fn(s) {
			return nil
		}
	}
	return nil
}

// SitemapSchedules returns a copy of the sitemap schedules, by URL.
func (m *MemStore) SitemapSchedules() map[string]crawlstore.SitemapSchedule {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]crawlstore.SitemapSchedule, len(m.sitemaps))
	for k, v := range m.sitemaps {
		out[k] = v
	}
	return out
}
