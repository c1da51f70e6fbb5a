package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

const defaultDB = "webtable.db"

const help = `index runs the indexing jobs over a WebTable and writes their results
back as derived column families (text, rank, dup); it never changes what
the crawl wrote (contents, anchor, mime, fetch).

Usage:
  index [flags] [JOB ...]

Jobs, run in this order (default: all):
  text    per stored HTML version: text:title, text:body (visible text),
          text:lang (ISO 639-1)
  rank    PageRank over the anchors: rank:page (the ranks sum to 1) and
          rank:hosts (distinct hosts linking to the page)
  dups    dup:simhash of each page's text, dup:of the representative of its
          cluster of duplicates (exact by contents:sha256, or near by simhash)
  search  the full-text index of every stored version (words, phrases,
          site:, --at TIME) that "query search" and "query serve" read;
          kept in DIR/search of a directory store, or in --index DIR
          (needed with bigtable://; without it "index" skips search)

Examples:
  index                                  all jobs over ./webtable.db
  index --db crawl.db rank               only the rank job
  index --full                           redo every row, not only changed ones
  index --shard 0/4 text                 a quarter of the text job's splits
                                         (run 1/4, 2/4, 3/4 elsewhere)
  index --follow text search             keep text and the search index up
                                         to date while a crawl stores pages

A job cuts the table at its tablets and records each finished split in
the table (rows under ~job/): killed, it resumes where it was; run again,
it redoes only rows whose inputs changed and changes nothing else.

Flags:
`

type config struct {
	db        string
	shard     string
	full      bool
	splitRows int
	workers   int
	quiet     bool
	every     time.Duration
	index     string
	follow    bool
	interval  time.Duration
}

func newFlags(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.db, "db", defaultDB, "the store: a `DIR`ectory (also one a crawl --serve holds) or bigtable://PROJECT/INSTANCE[/TABLE]")
	fs.StringVar(&cfg.shard, "shard", "0/1", "run shard `I/N` of each job: the splits whose number is I modulo N")
	fs.BoolVar(&cfg.full, "full", false, "redo every row, not only those whose inputs changed")
	fs.IntVar(&cfg.splitRows, "split-rows", 0, "cut tablets of more than `N` rows into splits of N (0: one split per tablet)")
	fs.IntVar(&cfg.workers, "workers", runtime.GOMAXPROCS(0), "splits run at once")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress lines, only the summary")
	fs.DurationVar(&cfg.every, "progress-every", plainEvery, "how often a progress line is written when stderr is not a terminal (0: after every split)")
	fs.StringVar(&cfg.index, "index", "", "the search index's `DIR`ectory (default: DB/search for a directory store; needed with bigtable://)")
	fs.BoolVar(&cfg.follow, "follow", false, "run the jobs again and again (every --follow-every) until interrupted, so that a page is searchable seconds after a crawl stores it")
	fs.DurationVar(&cfg.interval, "follow-every", time.Second, "with --follow, the pause between passes")
	return fs
}

// errUsage marks a mistake in the command line (exit status 2).
var errUsage = errors.New("usage")

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// allJobs lists the jobs in dependency order: dups reads text and rank.
var allJobs = []string{"text", "rank", "dups", "search"}

func newJob(name string) jobs.Job {
	switch name {
	case "text":
		return text.Job{}
	case "rank":
		return &rank.Job{}
	case "dups":
		return &dups.Job{}
	}
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := index(ctx, args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "index: %s (see index --help)\n", strings.TrimPrefix(err.Error(), "usage: "))
		return 2
	default:
		fmt.Fprintf(stderr, "index: %v\n", err)
		return 1
	}
}

func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q is not I/N with 0 <= I < N", s)
	}
	return i, n, nil
}

func index(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := newFlags(&cfg)
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, help)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return err
			}
			return usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		names = append(names, args[0])
		args = args[1:]
	}
	shard, shards, err := parseShard(cfg.shard)
	if err != nil {
		return err
	}
	if cfg.splitRows < 0 || cfg.workers < 1 {
		return usagef("--split-rows must be >= 0 and --workers >= 1")
	}
	if len(names) == 0 {
		names = defaultJobs(cfg, stderr)
	}
	for _, n := range names {
		if !slices.Contains(allJobs, n) {
			return usagef("no job %q (the jobs are %s)", n, strings.Join(allJobs, ", "))
		}
	}
	// Dependency order, whatever order they were named in.
	var ordered []string
	for _, n := range allJobs {
		if slices.Contains(names, n) {
			ordered = append(ordered, n)
		}
	}
	defer setMemoryLimit(os.Getenv)()
	w, err := stores.OpenForJobs(ctx, cfg.db, webtable.Options{})
	if err != nil {
		return err
	}
	logger := log.New(stderr, "index: ", 0)
	if cfg.follow {
		err := follow(ctx, w, ordered, cfg, shard, shards, logger, stdout, stderr)
		return errors.Join(err, w.Close())
	}
	sums, err := runJobs(ctx, w, ordered, cfg, shard, shards, logger, stderr)
	printSummary(stdout, sums)
	return errors.Join(err, w.Close())
}

// runJobs runs the named jobs in order, once each, and stops at the first
// that fails.
func runJobs(ctx context.Context, w *webtable.WebTable, names []string, cfg config, shard, shards int, logger *log.Logger, stderr io.Writer) ([]jobs.Summary, error) {
	var sums []jobs.Summary
	for _, name := range names {
		job, done, err := openJob(ctx, w, name, cfg, shard, shards, logger)
		if err != nil {
			return sums, err
		}
		p := newProgress(stderr, name, cfg.quiet, cfg.every)
		sum, err := jobs.Run(ctx, w, job, jobs.Config{
			Shard: shard, Shards: shards, Full: cfg.full, SplitRows: cfg.splitRows,
			Workers: cfg.workers, Log: logger, Progress: p.update,
		})
		p.finish()
		sums = append(sums, sum)
		if err := errors.Join(err, done()); err != nil {
			return sums, err
		}
	}
	return sums, nil
}

func printSummary(w io.Writer, sums []jobs.Summary) {
	fmt.Fprintf(w, "%-6s %7s %8s %8s %9s %5s %7s %9s  %s\n", "job", "splits", "rows", "written", "unchanged", "bad", "skipped", "time", "run")
	for _, s := range sums {
		c := s.Counts
		note := s.Run
		switch {
		case s.Waiting:
			note += " (this shard's splits were done; waiting for the others)"
		case s.Resumed:
			note += fmt.Sprintf(" (resumed: %d splits done before)", s.SplitsBefore)
		}
		fmt.Fprintf(w, "%-6s %3d/%-3d %8d %8d %9d %5d %7d %9s  %s\n", s.Job, s.SplitsBefore+s.Ran, s.Splits,
			c.Rows, c.Written, c.Unchanged, c.Bad, c.Other, s.Elapsed.Round(time.Millisecond), note)
	}
}
