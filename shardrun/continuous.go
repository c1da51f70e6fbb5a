package shardrun

import (
	"context"
	"fmt"
	"io"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// Continuous runs shard o.Crawl.Shard of o.Crawl.Shards of a continuous
// crawl (crawl --continuous --shard I/N), which has no rounds to agree on
// and never finishes: crawl is the crawl of one process over store (w's
// CrawlStore, counting what it queues and fetches), and runs until ctx
// ends. Meanwhile the shard keeps its record as a batch shard does: state
// running, one heartbeat every poll (a twentieth of o.Timeout, between
// 20 ms and 1 s) with the counts since the last, while it fetches and
// while it waits for its next page due; state stopped when crawl returns.
// A shard killed outright stays running with a heartbeat that gets old
// (webtable.ShardRecord.Silent). It returns crawl's error, or the store's
// when the first record cannot be written.
func Continuous(ctx context.Context, w *webtable.WebTable, o Options, crawl func(store crawlstore.Store) error) error {
	if err := w.SetShard(o.Crawl.Shard, o.Crawl.Shards); err != nil {
		return errorf(Usage, "%v", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	s := newShard(w, &o, stderr)
	if err := s.retry(ctx, "saying this shard is running", func(ctx context.Context) error {
		return s.update(ctx, webtable.ShardUpdate{State: webtable.ShardRunning, Round: true})
	}); err != nil {
		return err
	}
	beatCtx, stopBeats := context.WithCancel(context.WithoutCancel(ctx))
	beating := make(chan struct{})
	go func() {
		defer close(beating)
		s.beat(beatCtx)
	}()
	err := crawl(s.counts)
	stopBeats()
	<-beating // the last counts go with the state, not with a beat after it
	// NB: the crawl's context has ended; the state is written on one of
	// its own, bounded as a heartbeat is.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout(o.Timeout))
	defer cancel()
	if uerr := s.update(sctx, webtable.ShardUpdate{State: webtable.ShardStopped}); uerr != nil {
		fmt.Fprintf(s.stderr, "%scannot say this shard stopped (it shows as running until its heartbeat is older than --shard-timeout %v): %v\n", s.label, o.Timeout, uerr)
	}
	return err
}
