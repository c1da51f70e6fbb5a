package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawler"
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

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// run is the whole program: it returns the exit status. ctx is cancelled
// by Ctrl-C (see main).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := crawl(ctx, args, stdout, stderr)
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

func crawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return fail(exitUsage, "%v (see crawl --help)", err)
	}
	if o.demo {
		return runDemo(ctx, o, stdout, stderr)
	}
	seedURLs, err := loadSeeds(o, stderr)
	if err != nil {
		return err
	}
	open := openStore
	if o.cfg.Shards > 1 {
		open = openShardStore
	}
	w, err := open(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer w.Close()
	if o.cfg.Shards > 1 {
		return crawlShard(ctx, o, w, seedURLs, stderr)
	}
	if len(seedURLs) == 0 {
		queued := false
		if err := w.Queued(ctx, func(webtable.Entry) bool { queued = true; return false }); err != nil {
			return fail(exitStoreFailed, "reading the frontier of %s: %v", o.db, err)
		}
		if !queued {
			return fail(exitUsage, "no seeds: give URLs, --seeds FILE (e.g. --seeds seeds/default.txt), or try --demo")
		}
		fmt.Fprintf(stderr, "no seeds given: resuming the crawl queued in %s\n", o.db)
	}
	_, err = crawlOnce(ctx, o.cfg, w, seedURLs, stderr, "")
	return err
}

// crawlOnce runs one crawl into w and prints its summary. label names the
// pass in the demo.
func crawlOnce(ctx context.Context, cfg crawler.Config, w *webtable.WebTable, seedURLs []string, stderr io.Writer, label string) (crawler.Stats, error) {
	p := newProgress(stderr, label)
	cfg.Progress = p.update
	var logMu sync.Mutex
	cfg.Log = func(line string) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, "crawl: %s%s\n", label, line)
	}
	c, err := crawler.New(cfg, newStore(w))
	if err != nil {
		return crawler.Stats{}, fail(exitUsage, "%v", err)
	}
	defer c.Close()
	st, err := c.Run(ctx, seedURLs)
	p.finish(st)
	switch {
	case err == nil:
		return st, nil
	case errors.Is(err, crawler.ErrSeed) || errors.Is(err, crawler.ErrConfig):
		return st, fail(exitUsage, "%v", err)
	case ctx.Err() != nil && !errors.Is(err, crawler.ErrStore):
		return st, fail(exitInterrupted, "stopped; pages in flight were stored, and running the same command again resumes the crawl")
	default:
		return st, fail(exitStoreFailed, "the crawl stopped because the store failed: %v", err)
	}
}

// loadSeeds reads --seeds and the seed arguments. Bad lines are reported
// and skipped; an unreadable or empty file is an error.
func loadSeeds(o *options, stderr io.Writer) ([]string, error) {
	var all []seeds.Seed
	var skipped []*seeds.LineError
	if o.seedsFile != "" {
		s, bad, err := seeds.Load(o.seedsFile)
		if err != nil {
			return nil, fail(exitUsage, "%v%s", err, firstBad(bad))
		}
		all, skipped = append(all, s...), append(skipped, bad...)
	}
	if len(o.seeds) > 0 {
		s, bad, err := seeds.Parse(strings.NewReader(strings.Join(o.seeds, "\n")), "arguments")
		if err != nil && len(all) == 0 {
			return nil, fail(exitUsage, "no usable seed URL among the arguments (want e.g. http://example.org/)%s", firstBad(bad))
		}
		all, skipped = append(all, s...), append(skipped, bad...)
	}
	for _, b := range skipped {
		fmt.Fprintf(stderr, "crawl: skipping bad seed: %v\n", b)
	}
	return seeds.URLs(all), nil
}

// firstBad names the first bad seed line, to explain why none was usable.
func firstBad(bad []*seeds.LineError) string {
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d bad line(s), the first: %v", len(bad), bad[0])
}

// openStore opens (or creates) the WebTable of the crawl.
func openStore(ctx context.Context, o *options, stderr io.Writer) (*webtable.WebTable, error) {
	w, err := stores.Create(ctx, o.db, webtable.Options{Versions: o.versions})
	switch {
	case err == nil:
		// A store written before the frontier had rows of its own gets
		// them once; a queued row that cannot be read is named and left.
		n, merr := w.MigrateFrontier(ctx, func(b webtable.BadEntry) {
			fmt.Fprintf(stderr, "crawl: skipping a queued row that cannot be read: %v\n", b)
		})
		if merr != nil {
			w.Close()
			return nil, fail(exitStoreFailed, "moving the queued pages of %s to its frontier: %v", o.db, merr)
		}
		if n > 0 {
			fmt.Fprintf(stderr, "moved %d queued pages of %s to its frontier\n", n, o.db)
		}
		return w, nil
	case errors.Is(err, bigtable.ErrInUse):
		return nil, fail(exitUsage, "the store %s is in use by another process (another crawl, or a query): wait for it to finish or stop it", o.db)
	default:
		return nil, fail(exitUsage, "cannot open the store: %v", err)
	}
}
