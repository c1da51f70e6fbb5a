package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"time"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/search"
	"github.com/webtable/webtable/webtable"
)

// indexDir is where the search index of db lives: --index, else inside a
// directory store; "" when there is none (bigtable:// without --index).
func indexDir(db, index string) string {
	switch {
	case index != "":
		return index
	case stores.IsCloud(db):
		return ""
	}
	return filepath.Join(db, search.DirName)
}

// defaultJobs are the jobs run when none is named: all of them, but search
// only where it has a directory.
func defaultJobs(cfg config, stderr io.Writer) []string {
	if indexDir(cfg.db, cfg.index) != "" {
		return allJobs
	}
	fmt.Fprintf(stderr, "index: not running search: a bigtable:// store needs --index DIR for its search index\n")
	return allJobs[:len(allJobs)-1]
}

// openJob makes the named job; done releases what it holds (the search
// index, which other processes can open only once it is closed).
func openJob(ctx context.Context, w *webtable.WebTable, name string, cfg config, shard, shards int, logger *log.Logger) (jobs.Job, func() error, error) {
	if name != "search" {
		return newJob(name), func() error { return nil }, nil
	}
	dir := indexDir(cfg.db, cfg.index)
	if dir == "" {
		return nil, nil, usagef("search needs --index DIR with a bigtable:// store (where its index is kept)")
	}
	sh, err := search.OpenShard(dir, shard, shards, func(format string, args ...any) {
		logger.Printf("search: "+format, args...)
	})
	if err != nil {
		return nil, nil, err
	}
	job := &search.Job{Shard: sh}
	if sh.Fresh {
		// NB: a run begun over an index now gone recorded splits that
		// this index does not hold: forget them, so they run again.
		if err := search.ForgetRun(ctx, w, job); err != nil {
			sh.Close()
			return nil, nil, err
		}
	}
	return job, sh.Close, nil
}

// follow runs the jobs again and again until ctx ends, writing a summary
// line for each pass that changed something.
func follow(ctx context.Context, w *webtable.WebTable, names []string, cfg config, shard, shards int, logger *log.Logger, stdout, stderr io.Writer) error {
	cfg.quiet = true
	for pass := 1; ; pass++ {
		sums, err := runJobs(ctx, w, names, cfg, shard, shards, logger, stderr)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, search.ErrBusy) {
			logger.Printf("pass %d: %v; trying again", pass, err)
		} else if err != nil {
			printSummary(stdout, sums)
			return err
		}
		if changed(sums) {
			printSummary(stdout, sums)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(cfg.interval):
		}
	}
}

func changed(sums []jobs.Summary) bool {
	for _, s := range sums {
		if s.Counts.Written > 0 {
			return true
		}
	}
	return false
}
