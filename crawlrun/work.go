package crawlrun

import (
	"context"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/webtable"
)

// Resumes reports whether a run from seeds with cfg would only resume what
// w has queued: it has no seeds and reads no sitemaps (cfg.Sitemaps, unless
// cfg.NoSitemaps). Then queued says whether w has anything queued, and a
// run with nothing queued has nothing to do.
//
// NB: queued is a seek from a host's hint (see webtable.FrontierHint), not
// a read of the entries: a frontier whose first host has many entries
// done would otherwise walk their tombstones before the crawl began.
func Resumes(ctx context.Context, w *webtable.WebTable, seeds []string, cfg crawler.Config) (resumes, queued bool, err error) {
	if len(seeds) > 0 || (len(cfg.Sitemaps) > 0 && !cfg.NoSitemaps) {
		return false, false, nil
	}
	queued, err = w.HasFrontier(ctx)
	return true, queued, err
}
