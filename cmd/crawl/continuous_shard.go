package main

import (
	"context"
	"io"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/shardrun"
	"github.com/webtable/webtable/webtable"
)

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
	return shardExit(shardrun.Continuous(ctx, w, shardOptions(o, stderr, nil), func(store crawlstore.Store) error {
		o.crawlStore = store
		_, err := crawlOnce(ctx, o, w, seedURLs, stderr, label)
		return err
	}))
}
