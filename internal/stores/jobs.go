package stores

import (
	"context"
	"errors"
	"fmt"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/webtable"
)

// OpenForJobs opens an existing WebTable at db for the indexing jobs
// (cmd/index), which read it and write their derived families: a
// directory is opened for writing, creating nothing; one held by a crawl
// that serves it (crawl --serve) is written through that crawl's server;
// a bigtable:// URL names Cloud Bigtable. The derived families are
// created when absent ([webtable.WebTable.EnsureDerived]).
func OpenForJobs(ctx context.Context, db string, opts webtable.Options) (*webtable.WebTable, error) {
	var w *webtable.WebTable
	var err error
	switch {
	case IsCloud(db):
		w, err = openCloud(ctx, db, ForRead, opts)
	default:
		// NB: the bigtable package's default sizing, not CrawlStoreOptions:
		// a job writes in bursts between scans, and rank over 1M pages /
		// 30M links took 108 s with the crawl's 8 MiB memtables, 80 s with
		// the defaults, both under 900 MiB of RssAnon (jobs.MemoryLimit).
		w, err = openDir(ctx, db, false, withStore(opts, bigtable.WithReadOnly(false), bigtable.WithReadAheadGoroutines(1)))
		if errors.Is(err, bigtable.ErrInUse) {
			if addr, ok := liveEndpoint(db); ok {
				w, err = openLive(ctx, db, addr, opts)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := w.EnsureDerived(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("stores: %s: %w", db, err)
	}
	return w, nil
}
