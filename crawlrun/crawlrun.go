package crawlrun

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// SetupError is the error of a crawler that could not be created from
// its configuration (crawler.New): a usage error, not the store's.
type SetupError struct{ Err error }

// Error is the crawler's own error.
func (e *SetupError) Error() string { return e.Err.Error() }

// Unwrap returns the crawler's error.
func (e *SetupError) Unwrap() error { return e.Err }

// Run crawls from seeds into w as cfg says (cfg.Continuous: until ctx
// ends) and returns the run's figures. started, when not nil, is called
// with the crawler before it runs (crawl --metrics reads its Stats). A
// run that ends early returns an *Error saying why: of kind Usage,
// wrapping a *SetupError, when cfg is refused; otherwise wrapping the
// run's error (see crawler.Crawler.Run).
func Run(ctx context.Context, w *webtable.WebTable, seeds []string, cfg crawler.Config, started func(*crawler.Crawler)) (crawler.Stats, error) {
	return RunOn(ctx, w, w.CrawlStore(), seeds, cfg, started)
}

// RunOn is Run with the crawler over store, a wrapper of w's CrawlStore
// that keeps its optional powers (a continuous shard's, which counts for
// its record what it queues and fetches: shardrun.Continuous); a nil
// store is w's CrawlStore.
func RunOn(ctx context.Context, w *webtable.WebTable, store crawlstore.Store, seeds []string, cfg crawler.Config, started func(*crawler.Crawler)) (crawler.Stats, error) {
	if store == nil {
		store = w.CrawlStore()
	}
	// The WebTable's last deletes, after the run, are cut off when the
	// run's own store calls are: closing it then writes nothing that a
	// hung store could hold for ever.
	cut, release := crawler.CutOff(ctx, cfg.StoreGrace)
	defer release()
	c, err := crawler.New(cfg, store)
	if err != nil {
		return crawler.Stats{}, ended(ctx, &SetupError{Err: err})
	}
	defer c.Close()
	if started != nil {
		started(c)
	}
	run := c.Run
	if cfg.Continuous {
		run = c.RunContinuous
	}
	st, err := run(ctx, seeds)
	if ferr := w.FlushDeletes(cut); ferr != nil && cfg.Log != nil {
		if cut.Err() != nil {
			ferr = fmt.Errorf("%v: %v", context.Cause(cut), ferr)
		}
		cfg.Log(fmt.Sprintf("could not delete the queue entries of the last pages saved (the next run skips them, as those pages are done): %v", ferr))
	}
	return st, ended(ctx, err)
}

// LogTo returns a crawler.Config.Log that writes each line to w after
// prefix, one whole line at a time: the crawler logs from its workers at
// once.
func LogTo(w io.Writer, prefix string) func(line string) {
	var mu sync.Mutex
	return func(line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s%s\n", prefix, line)
	}
}
