package crawlstore

import (
	"context"
	"time"
)

// SitemapSchedule is what a continuous crawl keeps of one sitemap file it
// reads again on a schedule (one named by robots.txt or by --sitemap):
// when it is due, the validators its server gave for a conditional GET,
// and its change history (as a page's, see [Change]).
type SitemapSchedule struct {
	// URL is the sitemap's canonical URL; Host its url.URL.Host, which
	// names its shard.
	URL, Host string
	// Due is when the sitemap is to be read again.
	Due time.Time
	// Read is when it was last read (a 200 or a 304); zero when never.
	Read time.Time
	// ETag and LastModified are the validators of its last 200, sent back
	// as If-None-Match and If-Modified-Since; "" when the server gave none.
	ETag, LastModified string
	// SHA256 is the hex SHA-256 of the body of its last 200.
	SHA256 string
	// Visits counts the reads compared with the one before them, Changes
	// those that found it changed, over Span (from the first read to the
	// last).
	Visits, Changes int
	Span            time.Duration
}

// SitemapKeeper is a [Store] that keeps the schedules of a continuous
// crawl's sitemaps, so that a restart, or another shard, reads each when
// it is due.
type SitemapKeeper interface {
	// SaveSitemap writes s, replacing what the store held for s.URL.
	SaveSitemap(ctx context.Context, s SitemapSchedule) error
	// Sitemap returns the schedule of the sitemap at url; ok is false
	// when the store holds none.
	Sitemap(ctx context.Context, url string) (s SitemapSchedule, ok bool, err error)
	// Sitemaps calls fn with the schedule of every sitemap of the hosts
	// of shard (of shards; all when shards <= 1), until fn returns false.
	Sitemaps(ctx context.Context, shard, shards int, fn func(SitemapSchedule) bool) error
}
