package webtable

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// Sitemap schedules: when a continuous crawl reads each sitemap again
// ([crawlstore.SitemapKeeper]). One row per sitemap file named by
// robots.txt or --sitemap:
//
//	~sitemap/<bucket>/<host>/<url>
//
//	bucket  urlkey.HostBucket of the sitemap's host, 6 decimal digits, as
//	        in the frontier, so that a shard reads one contiguous range
//	host    url.URL.Host of the sitemap's canonical URL (it holds no "/")
//	url     the sitemap's canonical URL
//
// The row holds one cell, fetch:schedule at [FrontierTime], the schedule
// as JSON (sitemapScheduleJSON): a rewrite replaces it. A sitemap has a
// few rows per host at most; a continuous crawl reads its shard's range
// when it waits for its next page due.
//
// NB: new rows, which older readers skip: no format version step.

// SitemapSchedulePrefix starts every sitemap schedule's row key.
const SitemapSchedulePrefix = ReservedPrefix + "sitemap/"

const colSchedule = "schedule"

var _ crawlstore.SitemapKeeper = (*CrawlStore)(nil)

// SitemapScheduleKey is the row key of the schedule of the sitemap at
// url (canonical) on host.
func SitemapScheduleKey(host, url string) string {
	return SitemapSchedulePrefix + bucketText(urlkey.HostBucket(host)) + "/" + host + "/" + url
}

// sitemapScheduleJSON is a schedule's stored form.
type sitemapScheduleJSON struct {
	URL          string `json:"url"`
	Host         string `json:"host"`
	Due          int64  `json:"due_us"`
	Read         int64  `json:"read_us,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	SHA256       string `json:"sha256,omitempty"`
	Visits       int    `json:"visits,omitempty"`
	Changes      int    `json:"changes,omitempty"`
	SpanMS       int64  `json:"span_ms,omitempty"`
}

func encodeSitemapSchedule(s crawlstore.SitemapSchedule) []byte {
	j := sitemapScheduleJSON{URL: s.URL, Host: s.Host, Due: s.Due.UnixMicro(), ETag: s.ETag, LastModified: s.LastModified,
		SHA256: s.SHA256, Visits: s.Visits, Changes: s.Changes, SpanMS: s.Span.Milliseconds()}
	if !s.Read.IsZero() {
		j.Read = s.Read.UnixMicro()
	}
	b, _ := json.Marshal(j) // NB: strings and numbers only: it cannot fail
	return b
}

// decodeSitemapSchedule reads a stored schedule, checking it.
func decodeSitemapSchedule(b []byte) (crawlstore.SitemapSchedule, error) {
	var j sitemapScheduleJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return crawlstore.SitemapSchedule{}, fmt.Errorf("webtable: sitemap schedule: %w", err)
	}
	if j.URL == "" || j.Host == "" || strings.Contains(j.Host, "/") || j.Visits < 0 || j.Changes < 0 || j.Changes > j.Visits || j.SpanMS < 0 || j.SpanMS > math.MaxInt64/int64(time.Millisecond) {
		return crawlstore.SitemapSchedule{}, fmt.Errorf("webtable: sitemap schedule %q: bad fields", b)
	}
	s := crawlstore.SitemapSchedule{URL: j.URL, Host: j.Host, Due: time.UnixMicro(j.Due).UTC(), ETag: j.ETag, LastModified: j.LastModified,
		SHA256: j.SHA256, Visits: j.Visits, Changes: j.Changes, Span: time.Duration(j.SpanMS) * time.Millisecond}
	if j.Read != 0 {
		s.Read = time.UnixMicro(j.Read).UTC()
	}
	return s, nil
}

// SaveSitemap implements crawlstore.SitemapKeeper.
func (s *CrawlStore) SaveSitemap(ctx context.Context, sc crawlstore.SitemapSchedule) error {
	if sc.URL == "" || sc.Host == "" || strings.Contains(sc.Host, "/") {
		return fmt.Errorf("webtable: sitemap schedule of %q on host %q: want a URL and a host", sc.URL, sc.Host)
	}
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colSchedule, FrontierTime, encodeSitemapSchedule(sc))
	if err := s.w.tbl.Apply(ctx, SitemapScheduleKey(sc.Host, sc.URL), m); err != nil {
		return fmt.Errorf("webtable: saving the schedule of sitemap %s: %w", sc.URL, err)
	}
	return nil
}

// Sitemap implements crawlstore.SitemapKeeper.
func (s *CrawlStore) Sitemap(ctx context.Context, url string) (crawlstore.SitemapSchedule, bool, error) {
	u, err := urlkey.Canonical(url)
	if err != nil {
		return crawlstore.SitemapSchedule{}, false, fmt.Errorf("webtable: sitemap %q: %w", url, err)
	}
	r, err := s.w.tbl.ReadRow(ctx, SitemapScheduleKey(u.Host, u.String()), bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		return crawlstore.SitemapSchedule{}, false, fmt.Errorf("webtable: reading the schedule of sitemap %s: %w", url, err)
	}
	for _, it := range r[FamilyFetch] {
		if qualifier(it.Column) == colSchedule {
			sc, err := decodeSitemapSchedule(it.Value)
			return sc, err == nil, err
		}
	}
	return crawlstore.SitemapSchedule{}, false, nil
}

// Sitemaps implements crawlstore.SitemapKeeper. A schedule that cannot be
// read is an error naming its row.
func (s *CrawlStore) Sitemaps(ctx context.Context, shard, shards int, fn func(crawlstore.SitemapSchedule) bool) error {
	lo, hi := urlkey.BucketRange(shard, shards)
	start, end := bucketBounds(SitemapSchedulePrefix, lo, hi)
	var bad error
	err := s.w.tbl.ReadRows(ctx, bigtable.NewRange(start, end), func(r bigtable.Row) bool {
		for _, it := range r[FamilyFetch] {
			if qualifier(it.Column) != colSchedule {
				continue
			}
			sc, err := decodeSitemapSchedule(it.Value)
			if err != nil {
				bad = fmt.Errorf("row %q: %w", r.Key(), err)
				return false
			}
			return fn(sc)
		}
		return true
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err == nil {
		err = bad
	}
	if err != nil {
		return fmt.Errorf("webtable: reading the sitemap schedules: %w", err)
	}
	return nil
}
