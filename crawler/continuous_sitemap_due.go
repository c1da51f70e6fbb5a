package crawler

import (
	"context"
	"fmt"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// Sitemaps on a schedule (crawl --continuous).
//
// In a continuous crawl each sitemap named by robots.txt or --sitemap has
// its own due time, kept in the store ([crawlstore.SitemapKeeper]) so
// that a restart, or another shard, carries on. A round reads the
// sitemaps of its shard due by then (readDueSitemaps), besides those it
// meets as any round does (--sitemap, robots.txt of a host it fetches),
// and skips those not due yet; the wait between rounds (waitDue) ends at
// the earliest sitemap due as it does at the earliest page due. So a URL
// newly listed, or a lastmod newer than a page's last fetch
// (requeueModified), is fetched when the sitemap is due, even when no
// page of its host is.
//
// A sitemap is read with a conditional GET (If-None-Match,
// If-Modified-Since) when its last 200 gave validators; a 304, or a body
// of the same SHA-256, is a read that found it unchanged. Each read is a
// fetch against --budget.
//
// When it is due again comes from its own reads, with the estimator of
// the pages (ChangeEstimate): read again after 1/rate, within
// [MinInterval, MaxInterval]; after MinInterval while it has no estimate
// (its first read, a failed read, an odd history); and, while it was
// never seen changing, after twice the time it has been watched (so
// MinInterval, then 2x, 6x, 18x ... as it stays unchanged). NB: not the
// pages' policy (Policy.Interval): that one gives up on things changing
// faster than the budget can follow, while a sitemap that changes often
// is the one whose reads find the most new and changed pages; and not the
// host's shortest page interval, which is longest exactly for the hosts
// whose pages seldom change, where a sitemap is the only sign of a new
// page.

// sitemapKeeper is the store's SitemapKeeper in a continuous crawl that
// reads sitemaps, nil otherwise.
func (c *Crawler) sitemapKeeper() crawlstore.SitemapKeeper {
	if !c.cfg.Continuous || c.cfg.NoSitemaps {
		return nil
	}
	sk, _ := c.store.s.(crawlstore.SitemapKeeper)
	return sk
}

// readDueSitemaps reads, in the background, the sitemaps of the run's
// shard due by now.
func (r *run) readDueSitemaps() error {
	sk := r.c.sitemapKeeper()
	if sk == nil {
		return nil
	}
	now := r.c.clock.Now()
	var due []string
	err := sk.Sitemaps(r.storeCtx, r.c.cfg.Shard, r.c.cfg.Shards, func(s crawlstore.SitemapSchedule) bool {
		if !s.Due.After(now) {
			due = append(due, s.URL)
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("%w: listing the sitemaps due: %w", ErrStore, err)
	}
	for _, s := range due {
		r.readSitemapLater(s, 0)
	}
	return nil
}

// nextSitemapDue returns the earliest due time of the shard's sitemaps;
// zero when it has none (or the crawl keeps no schedules).
func (c *Crawler) nextSitemapDue(ctx context.Context) (time.Time, error) {
	sk := c.sitemapKeeper()
	if sk == nil {
		return time.Time{}, nil
	}
	var next time.Time
	err := sk.Sitemaps(ctx, c.cfg.Shard, c.cfg.Shards, func(s crawlstore.SitemapSchedule) bool {
		if next.IsZero() || s.Due.Before(next) {
			next = s.Due
		}
		return true
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: listing the sitemaps due: %w", ErrStore, err)
	}
	return next, nil
}

// sitemapSchedule returns the schedule of the sitemap s (a canonical URL
// on host, named by robots.txt or --sitemap) in a continuous crawl: ok is
// false outside one; skip is true when it is not due yet.
func (r *run) sitemapSchedule(s, host string) (sc crawlstore.SitemapSchedule, ok, skip bool, err error) {
	sk := r.c.sitemapKeeper()
	if sk == nil {
		return sc, false, false, nil
	}
	sc, found, err := sk.Sitemap(r.storeCtx, s)
	if err != nil {
		return sc, false, false, fmt.Errorf("%w: reading the schedule of sitemap %s: %w", ErrStore, s, err)
	}
	if !found {
		sc = crawlstore.SitemapSchedule{URL: s, Host: host}
	}
	return sc, true, found && sc.Due.After(r.c.clock.Now()), nil
}

// sitemapRead is what one read of a sitemap gave, for its schedule.
type sitemapRead struct {
	ok                         bool // a 200 or a 304
	notModified                bool // a 304
	etag, lastModified, sha256 string
}

// saveSitemapSchedule writes sc after the read res at now.
func (r *run) saveSitemapSchedule(sc crawlstore.SitemapSchedule, res sitemapRead, now time.Time) error {
	sc = nextSitemapSchedule(sc, res, now, r.c.cfg.MinInterval, r.c.cfg.MaxInterval)
	if err := r.c.sitemapKeeper().SaveSitemap(r.storeCtx, sc); err != nil {
		return fmt.Errorf("%w: saving the schedule of sitemap %s: %w", ErrStore, sc.URL, err)
	}
	return nil
}

// nextSitemapSchedule is sc after the read res at now, with when it is
// due again (see above).
func nextSitemapSchedule(sc crawlstore.SitemapSchedule, res sitemapRead, now time.Time, lo, hi time.Duration) crawlstore.SitemapSchedule {
	if !res.ok {
		sc.Due = now.Add(lo)
		return sc
	}
	changed := !res.notModified && res.sha256 != sc.SHA256
	if !res.notModified {
		sc.ETag, sc.LastModified, sc.SHA256 = res.etag, res.lastModified, res.sha256
	}
	first := sc.Read.IsZero()
	last := sc.Read
	sc.Read = now
	if first {
		sc.Due = now.Add(lo)
		return sc
	}
	e, ok := ChangeEstimate{Visits: sc.Visits, Changes: sc.Changes, Span: sc.Span}.Observe(now.Sub(last), changed)
	if !ok {
		sc.Visits, sc.Changes, sc.Span = 0, 0, 0 // an odd history starts again
		sc.Due = now.Add(lo)
		return sc
	}
	sc.Visits, sc.Changes, sc.Span = e.Visits, e.Changes, e.Span
	interval := lo
	if e.Changes == 0 {
		interval = 2 * e.Span
	} else if rate, ok := e.Rate(dueMinVisits); ok && rate > 0 {
		interval = time.Duration(float64(time.Second) / rate)
	}
	sc.Due = now.Add(min(max(interval, lo), hi))
	return sc
}
