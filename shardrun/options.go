package shardrun

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlrun"
	"github.com/webtable/webtable/webtable"
)

// Options configure the run of one shard.
type Options struct {
	// Crawl configures the crawler of each round: Crawl.Shard and
	// Crawl.Shards name the shard, Crawl.MaxPages is the budget of the
	// whole crawl, shared between the shards through the store. Run sets
	// Progress and Log itself.
	Crawl crawler.Config
	// Timeout is how long a shard may give no sign of life before the
	// others stop saying it is gone, and how long the store may fail
	// before this shard gives up (--shard-timeout). The default value is
	// DefaultTimeout.
	Timeout time.Duration
	// DB names the store in messages (--db).
	DB string
	// Stderr receives the shard's messages, one line per Write, prefixed
	// with Label, from several goroutines at once: it must be safe for
	// that ([SyncWriter]).
	Stderr io.Writer
	// Report is told how the crawl goes.
	Report Reporter
	// RoundDone, when set, is called after each round that ended without
	// error, before the shard counts what it left queued: tests use it to
	// queue entries at that moment.
	RoundDone func(ctx context.Context, shard int, w *webtable.WebTable)
	// Started, when set, is called with each round's crawler once it is
	// created, before it runs (crawl --metrics reads its Stats).
	Started func(c *crawler.Crawler)
}

// Reporter is what a shard tells the program as it goes: the progress
// bar and lines of cmd/crawl.
type Reporter interface {
	// Update is called with the totals of the rounds so far after every
	// page; never concurrently.
	Update(total crawler.Stats)
	// Round is called after round n (from 1) when it fetched or failed
	// pages, with its own statistics.
	Round(n int, st crawler.Stats)
	// Finish is called with the totals once, when the run ends after a
	// round: interrupted, or with the whole crawl finished.
	Finish(total crawler.Stats)
}

// Label is the prefix of a shard's lines: "shard 1/4: ".
func Label(shard, shards int) string { return fmt.Sprintf("shard %d/%d: ", shard, shards) }

// Kind says why the run of a shard ended without the crawl finished:
// StoreFailed (the store did not answer for longer than Options.Timeout),
// Usage (the configuration or the seeds cannot be used), ShardGone
// (another shard has been silent for longer than Options.Timeout before
// the crawl was finished) or Interrupted (the run's context was
// cancelled; running it again resumes it). They are crawlrun's, so that a
// program reads the end of any run alike.
type Kind = crawlrun.Kind

// The kinds of [Error].
const (
	StoreFailed = crawlrun.StoreFailed
	Usage       = crawlrun.Usage
	ShardGone   = crawlrun.ShardGone
	Interrupted = crawlrun.Interrupted
)

// Error ends the run of a shard: what happened, in one line for a person
// (Msg), and its Kind, for the program's exit status.
type Error = crawlrun.Error

func errorf(kind Kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}
