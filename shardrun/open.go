package shardrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/webtable"
)

// Open opens the store of a shard with open, which writes its messages
// to the writer it is given. A store that does not answer, or fails, is
// tried again with backoff for up to o.Timeout, saying so on o.Stderr;
// then the shard gives up (an [Error] of kind StoreFailed).
func Open(ctx context.Context, o Options, open func(ctx context.Context, stderr io.Writer) (*webtable.WebTable, error)) (*webtable.WebTable, error) {
	stderr := o.Stderr
	label := Label(o.Crawl.Shard, o.Crawl.Shards)
	start := time.Now()
	wait := poll(o.Timeout)
	giveUp := func(err error) error {
		return errorf(StoreFailed, "the store %s has not answered for %v (--shard-timeout): giving up; the crawl is not finished, and running the same command again resumes this shard; last error: %v",
			o.DB, time.Since(start).Round(time.Second), err)
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
			w, err := open(ctx, io.Discard)
			ch <- opened{w, err}
		}()
		var r opened
		select {
		case r = <-ch:
		case <-time.After(callTimeout(o.Timeout)):
			fmt.Fprintf(stderr, "%scannot reach the store %s: no answer in %v; still waiting\n", label, o.DB, callTimeout(o.Timeout))
			select {
			case r = <-ch:
			case <-time.After(time.Until(start.Add(o.Timeout))):
				return nil, giveUp(errors.New("no answer"))
			case <-ctx.Done():
				return nil, errorf(Interrupted, "stopped while opening the store")
			}
		}
		if r.err == nil {
			return r.w, nil
		}
		if time.Since(start) > o.Timeout {
			return nil, giveUp(r.err)
		}
		fmt.Fprintf(stderr, "%scannot reach the store (retrying in %v): %v\n", label, wait, firstLine(r.err))
		select {
		case <-ctx.Done():
			return nil, errorf(Interrupted, "stopped while opening the store")
		case <-time.After(wait):
		}
		wait = min(wait*2, 30*time.Second)
	}
}
