package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// openShardStore opens the store of a shard. A Cloud Bigtable store that
// does not answer, or fails, is tried again with backoff for up to
// --shard-timeout, saying so; then the shard gives up (exit 1).
func openShardStore(ctx context.Context, o *options, stderr io.Writer) (*webtable.WebTable, error) {
	if !stores.IsCloud(o.db) {
		return openStore(ctx, o, stderr)
	}
	label := fmt.Sprintf("shard %d/%d: ", o.cfg.Shard, o.cfg.Shards)
	start := time.Now()
	wait := shardPoll(o.shardTimeout)
	giveUp := func(err error) error {
		return fail(exitStoreFailed, "the store %s has not answered for %v (--shard-timeout): giving up; the crawl is not finished, and running the same command again resumes this shard; last error: %v",
			o.db, time.Since(start).Round(time.Second), err)
	}
	type opened struct {
		w   *webtable.WebTable
		err error
	}
	for {
		ch := make(chan opened, 1)
		// NB: the client may keep the context it was opened with, so the
		// attempt gets ctx itself, not one with a deadline; a process that
		// gives up exits and takes the attempt with it.
		go func() {
			w, err := openStore(ctx, o, io.Discard)
			ch <- opened{w, err}
		}()
		var r opened
		select {
		case r = <-ch:
		case <-time.After(callTimeout(o.shardTimeout)):
			fmt.Fprintf(stderr, "%scannot reach the store %s: no answer in %v; still waiting\n", label, o.db, callTimeout(o.shardTimeout))
			select {
			case r = <-ch:
			case <-time.After(time.Until(start.Add(o.shardTimeout))):
				return nil, giveUp(errors.New("no answer"))
			case <-ctx.Done():
				return nil, fail(exitInterrupted, "stopped while opening the store")
			}
		}
		if r.err == nil {
			return r.w, nil
		}
		if time.Since(start) > o.shardTimeout {
			return nil, giveUp(r.err)
		}
		fmt.Fprintf(stderr, "%scannot reach the store (retrying in %v): %v\n", label, wait, firstLine(r.err))
		select {
		case <-ctx.Done():
			return nil, fail(exitInterrupted, "stopped while opening the store")
		case <-time.After(wait):
		}
		wait = min(wait*2, 30*time.Second)
	}
}
