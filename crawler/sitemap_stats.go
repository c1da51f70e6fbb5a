package crawler

import (
	"fmt"

	"github.com/webtable/webtable/sitemap"
)

// SitemapStats counts what a run read of sitemaps.
type SitemapStats struct {
	// Files counts the sitemap files read (indexes included).
	Files int64
	// Listed counts the URLs read from them that were handed to the store;
	// New those of them the store did not know.
	Listed, New int64
	// Skipped counts entries past a file's 50,000 (counted, not read);
	// Cut counts files longer than 50 MB, read up to there.
	Skipped, Cut int64
	// Bad counts files not read, or read in part: not XML, truncated,
	// listed again by an index (a loop), nested too deep, not fetched.
	// Each is named once through Config.Log.
	Bad int64
	// Outside counts listed URLs (and sitemaps of an index) not on the
	// sitemap's host or outside the allowed domains; each file's are named
	// once, by the first of them.
	Outside int64
	// Unchanged counts the sitemaps of a continuous crawl read again that
	// answered 304 Not Modified to a conditional GET (not counted in
	// Files).
	Unchanged int64
}

func (r *statsRecorder) sitemapBad(log func(string), line string) {
	r.mu.Lock()
	r.s.Sitemaps.Bad++
	r.mu.Unlock()
	if log != nil {
		log(line)
	}
}

func (r *statsRecorder) sitemapFile(f *sitemap.File) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Sitemaps.Files++
	r.s.Sitemaps.Skipped += int64(f.Skipped)
	if f.Cut {
		r.s.Sitemaps.Cut++
	}
}

func (r *statsRecorder) sitemapURL(isNew bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Sitemaps.Listed++
	if isNew {
		r.s.Sitemaps.New++
	}
}

// sitemapOutside counts n URLs of sitemap s outside its host or the
// allowed domains, and names the first.
func (r *statsRecorder) sitemapOutside(log func(string), s, first string, n int) {
	r.mu.Lock()
	r.s.Sitemaps.Outside += int64(n)
	r.mu.Unlock()
	if log != nil {
		log(fmt.Sprintf("sitemap %s: %d URLs outside its host or the allowed domains, not queued, the first %s", s, n, first))
	}
}

func (r *statsRecorder) sitemapUnchanged() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Sitemaps.Unchanged++
}
