package main

import (
	"context"
	"io"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/crawlreport"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/shardrun"
	"github.com/webtable/webtable/webtable"
)

// shardOptions maps the flags of a shard (--shard, --shard-timeout) to its
// run's options.
func shardOptions(o *options, stderr io.Writer, report shardrun.Reporter) shardrun.Options {
	cfg := o.cfg
	// After Ctrl-C the pages in flight are stored, within storeGrace.
	cfg.StoreGrace = o.deps.storeGrace
	return shardrun.Options{Crawl: o.metrics.Feed(cfg), Timeout: o.shardTimeout, DB: o.db, Stderr: stderr, Report: report, RoundDone: o.deps.shardRoundDone,
		Started: o.metrics.Watch}
}

// openShardStore opens the store of a shard: a Cloud Bigtable store that
// does not answer is tried again for up to --shard-timeout (shardrun.Open).
func openShardStore(ctx context.Context, o *options, stderr io.Writer) (*webtable.WebTable, error) {
	if !stores.IsCloud(o.db) {
		return openStore(ctx, o, stderr)
	}
	w, err := shardrun.Open(ctx, shardOptions(o, stderr, nil), func(ctx context.Context, stderr io.Writer) (*webtable.WebTable, error) {
		return openStore(ctx, o, stderr)
	})
	return w, runExit(err)
}

// crawlShard runs shard o.cfg.Shard of o.cfg.Shards until the whole crawl
// is finished (shardrun.Run), with its progress on stderr.
func crawlShard(ctx context.Context, o *options, w *webtable.WebTable, seedURLs []string, stderr io.Writer) error {
	stderr = shardrun.SyncWriter(stderr)
	// NB: o.cfg, which shardOptions maps, gets the renderer.
	closeRenderer, err := startRenderer(ctx, o, w, &o.cfg, stderr) // render.go
	if err != nil {
		return err
	}
	defer closeRenderer()
	p := crawlreport.NewProgress(stderr, shardrun.Label(o.cfg.Shard, o.cfg.Shards), 0)
	return runExit(shardrun.Run(ctx, w, seedURLs, shardOptions(o, stderr, p)))
}

// crawlContinuousShard runs shard o.cfg.Shard of o.cfg.Shards of a
// continuous crawl (--continuous --shard I/N) until Ctrl-C: the crawl of
// one process, over the hosts of its shard and their due entries, with
// the links to other shards' hosts noted in their inboxes. It has no
// rounds to agree on and never finishes; it keeps its shard record
// (state running, a heartbeat every poll, its counts) for query stats
// (shardrun.Continuous). A shard stopped and started again carries on
// from the store.
func crawlContinuousShard(ctx context.Context, o *options, w *webtable.WebTable, seedURLs []string, stderr io.Writer) error {
	stderr = shardrun.SyncWriter(stderr)
	label := shardrun.Label(o.cfg.Shard, o.cfg.Shards)
	return runExit(shardrun.Continuous(ctx, w, shardOptions(o, stderr, nil), func(store crawlstore.Store) error {
		o.crawlStore = store
		_, err := crawlOnce(ctx, o, w, seedURLs, stderr, label)
		return err
	}))
}
