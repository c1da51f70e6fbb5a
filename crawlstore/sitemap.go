package crawlstore

import "time"

// SitemapHint is what a sitemap said of a URL it listed. It rides with the
// queued entry to the fetch (Entry.Sitemap, Page.Sitemap) and is stored
// with the fetch record.
type SitemapHint struct {
	// LastMod is when the page last changed, by the sitemap; zero when
	// it did not say.
	LastMod time.Time
	// ChangeFreq is the sitemap's changefreq (daily, weekly, ...); "" when
	// it did not say.
	ChangeFreq string
	// Priority is the sitemap's priority, 0 to 1; -1 when it did not say.
	// A zero SitemapHint (Listed false) has no priority either.
	Priority float64
	// Listed is true when the URL was queued from a sitemap.
	Listed bool
}
