package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlrun"
	"github.com/webtable/webtable/internal/crawlreport"
	"github.com/webtable/webtable/internal/memlimit"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/seeds"
	"github.com/webtable/webtable/webtable"
)

// Exit statuses.
const (
	exitOK          = 0
	exitStoreFailed = 1   // the store failed during the crawl
	exitUsage       = 2   // bad flags, seeds or store
	exitShardGone   = 3   // a shard stayed silent longer than --shard-timeout
	exitInterrupted = 130 // stopped by Ctrl-C; the next run resumes
)

// exitError carries an exit status and the one line that explains it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// runExits are the exit statuses of the ways a run ends early (a crawl's,
// a shard's or a WARC import's).
var runExits = map[crawlrun.Kind]int{
	crawlrun.StoreFailed: exitStoreFailed,
	crawlrun.Usage:       exitUsage,
	crawlrun.ShardGone:   exitShardGone,
	crawlrun.Interrupted: exitInterrupted,
}

// runExit gives the error of a crawl's run, of a shard's (shardrun) or of
// a WARC import, a *crawlrun.Error, its exit status.
func runExit(err error) error {
	var ce *crawlrun.Error
	if errors.As(err, &ce) {
		return &exitError{code: runExits[ce.Kind], err: ce}
	}
	return err
}

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// storeGrace is how long each store call may take once the crawl is
// interrupted (Ctrl-C): a store that hangs (an unreachable Cloud Bigtable)
// must not hold the program for ever.
const storeGrace = 10 * time.Second

// deps are what the program reaches outside itself, so that tests can
// make the store fail or hang.
type deps struct {
	// open opens (or creates) the WebTable that --db names.
	open func(ctx context.Context, db string, opts webtable.Options) (*webtable.WebTable, error)
	// storeGrace bounds each store call once ctx is cancelled.
	storeGrace time.Duration
	// shardRoundDone, when set, is called by a shard (--shard) after each
	// round that ended without error, before it counts what it left
	// queued: tests use it to queue entries at that moment.
	shardRoundDone func(ctx context.Context, shard int, w *webtable.WebTable)
	// clock, when set, is the crawler's clock (crawler.Config.Clock):
	// tests of --continuous run hours of it at once.
	clock crawler.Clock
}

// run is the whole program: it returns the exit status. ctx is cancelled
// by Ctrl-C (see main). It runs under a Go memory limit (see
// setMemoryLimit).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	defer setMemoryLimit(os.Getenv, memlimit.Limit(defaultMemoryLimit))()
	return runWith(ctx, args, stdout, stderr, deps{open: openForCrawl, storeGrace: storeGrace})
}

// openForCrawl opens (or creates) the WebTable at db for a crawl.
func openForCrawl(ctx context.Context, db string, opts webtable.Options) (*webtable.WebTable, error) {
	return stores.Open(ctx, db, stores.ForCrawl, opts)
}

// runWith is run with the given dependencies.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, d deps) int {
	err := crawl(ctx, args, stdout, stderr, d)
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "crawl: %v\n", ee.err)
		return ee.code
	default:
		fmt.Fprintf(stderr, "crawl: %v\n", err)
		return exitStoreFailed
	}
}

func crawl(ctx context.Context, args []string, stdout, stderr io.Writer, d deps) (err error) {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return fail(exitUsage, "%v (see crawl --help)", err)
	}
	o.deps = d
	if o.demo {
		return runDemo(ctx, o, stdout, stderr)
	}
	if len(o.warcs) > 0 {
		return importWARCs(ctx, o, stdout, stderr)
	}
	seedURLs, err := loadSeeds(o, stderr)
	if err != nil {
		return err
	}
	stopMetrics, err := startMetrics(o, stderr)
	if err != nil {
		return err
	}
	defer stopMetrics()
	var w *webtable.WebTable
	stopServing := func() {}
	if o.cfg.Shards > 1 && o.serve == "" {
		// A shard tries a store that does not answer again for a while.
		w, err = openShardStore(ctx, o, stderr)
	} else {
		w, stopServing, err = openServedStore(ctx, o, stderr)
	}
	if err != nil {
		return err
	}
	watchStore(o, w) // metrics.go
	defer func() {
		stopServing()
		err = closeStore(w, o.db, err)
	}()
	if o.cfg.Shards > 1 && o.cfg.Continuous {
		return crawlContinuousShard(ctx, o, w, seedURLs, stderr) // shard.go
	}
	if o.cfg.Shards > 1 {
		if err := crawlShard(ctx, o, w, seedURLs, stderr); err != nil || o.serve == "" {
			return err
		}
		fmt.Fprintf(stderr, "the crawl is over; ")
		return serveUntilStopped(ctx, stderr)
	}
	resumes, queued, err := crawlrun.Resumes(ctx, w, seedURLs, o.cfg)
	switch {
	case err != nil:
		return fail(exitStoreFailed, "reading the frontier of %s: %v", o.db, err)
	case resumes && !queued && o.serve != "":
		fmt.Fprintf(stderr, "nothing to crawl in %s: only serving it\n", o.db)
		return serveUntilStopped(ctx, stderr)
	case resumes && !queued:
		return fail(exitUsage, "no seeds: give URLs, --seeds FILE (e.g. --seeds seeds/default.txt), or try --demo")
	case resumes:
		fmt.Fprintf(stderr, "no seeds given: resuming the crawl queued in %s\n", o.db)
	}
	_, err = crawlOnce(ctx, o, w, seedURLs, stderr, "")
	if err == nil && o.serve != "" {
		fmt.Fprintf(stderr, "the crawl is over; ")
		return serveUntilStopped(ctx, stderr)
	}
	return err
}

// serveUntilStopped waits for Ctrl-C or SIGTERM while the store is served;
// the caller's deferred close then stops the server and closes the store.
func serveUntilStopped(ctx context.Context, stderr io.Writer) error {
	fmt.Fprintf(stderr, "still serving the store until Ctrl-C (SIGINT) or SIGTERM\n")
	<-ctx.Done()
	fmt.Fprintf(stderr, "stopping the server and closing the store\n")
	return nil
}

// crawlOnce runs one crawl into w, configured by o.cfg, and prints its
// summary. label names the pass in the demo.
func crawlOnce(ctx context.Context, o *options, w *webtable.WebTable, seedURLs []string, stderr io.Writer, label string) (crawler.Stats, error) {
	cfg := o.cfg
	p := crawlreport.NewProgress(stderr, label, cfg.MaxPages)
	p.SetBudget(cfg.Budget)
	cfg.Progress = p.Update
	cfg.Log = crawlrun.LogTo(stderr, "crawl: "+label)
	closeRenderer, err := startRenderer(ctx, o, w, &cfg, stderr) // render.go
	if err != nil {
		return crawler.Stats{}, err
	}
	defer closeRenderer()
	cfg.StoreGrace, cfg.Clock = o.deps.storeGrace, o.deps.clock
	st, err := crawlrun.RunOn(ctx, w, o.crawlStore, seedURLs, o.metrics.Feed(cfg), o.metrics.Watch)
	var se *crawlrun.SetupError
	if !errors.As(err, &se) {
		p.Finish(st)
	}
	return st, runExit(err)
}

// loadSeeds reads --seeds and the seed arguments (seeds.Gather). Bad
// lines are reported and skipped; an unreadable or empty file is an error.
func loadSeeds(o *options, stderr io.Writer) ([]string, error) {
	urls, skipped, err := seeds.Gather(o.seedsFile, o.seeds)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	for _, b := range skipped {
		fmt.Fprintf(stderr, "crawl: skipping bad seed: %v\n", b)
	}
	return urls, nil
}

// openStore opens (or creates) the WebTable of the crawl, migrated to the
// newest format version (stores.MigrateForCrawl).
func openStore(ctx context.Context, o *options, stderr io.Writer) (*webtable.WebTable, error) {
	w, err := stores.OpenMigrated(ctx, o.db, stderr, func(ctx context.Context) (*webtable.WebTable, error) {
		return o.deps.open(ctx, o.db, webtable.Options{Versions: o.versions})
	})
	return w, openFailed(o, err)
}

// openFailed explains why the store of the crawl did not open (nil: it
// did).
func openFailed(o *options, err error) error {
	var me *stores.MigrateError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &me):
		return fail(exitStoreFailed, "%v", err)
	case errors.Is(err, webtable.ErrInUse):
		return fail(exitUsage, "the store %s is in use by another process (another crawl, or a query): wait for it to finish or stop it", o.db)
	case errors.Is(err, stores.ErrRemote):
		return fail(exitUsage, "--serve %s: that address can be reached from other machines, and the protocol has no authentication; add --allow-remote to serve there anyway", o.serve)
	default:
		return fail(exitUsage, "cannot open the store: %v", err)
	}
}

// openServedStore is openStore, serving the store too when --serve says
// so; stopServing stops the server (the store stays open for closeStore).
func openServedStore(ctx context.Context, o *options, stderr io.Writer) (w *webtable.WebTable, stopServing func(), err error) {
	if o.serve == "" {
		w, err := openStore(ctx, o, stderr)
		return w, func() {}, err
	}
	s, err := stores.OpenServedMigrated(ctx, o.db, webtable.Options{Versions: o.versions}, o.serve, o.allowRemote, stderr)
	if err != nil {
		return nil, nil, openFailed(o, err)
	}
	return s.WebTable, func() {
		if err := s.StopServing(); err != nil {
			fmt.Fprintf(stderr, "crawl: %v\n", err)
		}
	}, nil
}

// closeStore closes the crawl's store. Its error wins over err, even over
// an interrupt: the last writes of a store that fails to close may be
// lost, and the exit status must not say all went well.
func closeStore(w *webtable.WebTable, db string, err error) error {
	cerr := w.Close()
	if cerr == nil {
		return err
	}
	msg := fmt.Sprintf("closing the store %s failed, so the last pages may not be saved (run the same command again to fetch what is missing): %v", db, cerr)
	if err != nil {
		msg += fmt.Sprintf("; before that: %v", err)
	}
	return fail(exitStoreFailed, "%s", msg)
}
