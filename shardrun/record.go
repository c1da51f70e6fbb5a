package shardrun

import (
	"context"
	"fmt"
	"time"

	"github.com/webtable/webtable/webtable"
)

// beat writes a heartbeat, with the counts since the last one, every
// poll until ctx ends. A failure is said once and retried on the next beat.
func (s *shard) beat(ctx context.Context) {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout(s.o.Timeout))
		err := s.update(cctx, webtable.ShardUpdate{})
		cancel()
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			fmt.Fprintf(s.stderr, "%scannot write a heartbeat to the store (retrying every %v): %v\n", s.label, s.poll, err)
			failing = true
		case err == nil && failing:
			fmt.Fprintf(s.stderr, "%sthe store answers heartbeats again\n", s.label)
			failing = false
		}
	}
}

// update writes u plus the counts not yet written.
func (s *shard) update(ctx context.Context, u webtable.ShardUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, f := s.counts.take()
	u.Queued, u.Finished = q, f
	if u.State != "" {
		u.Timeout = s.o.Timeout
	}
	err := s.w.UpdateShard(ctx, s.o.Crawl.Shard, s.o.Crawl.Shards, u, s.now())
	if err != nil {
		s.counts.giveBack(q, f)
	}
	return err
}
