package shardrun

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// callTimeout bounds one call of a shard's own to the store (a Cloud
// Bigtable client waits for ever for a server that does not answer).
func callTimeout(shardTimeout time.Duration) time.Duration {
	return min(max(shardTimeout/2, time.Second), 30*time.Second)
}

// retry calls fn until it succeeds, backing off while the store fails
// (see failed). fn gets a context that ends after callTimeout.
func (s *shard) retry(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout(s.o.Timeout))
		err := fn(cctx)
		cancel()
		if err == nil {
			s.outage, s.failures = time.Time{}, 0
			return nil
		}
		if ctx.Err() != nil {
			return errorf(Interrupted, "stopped while %s; running the same command again resumes this shard", what)
		}
		if err := s.failed(ctx, what, err); err != nil {
			return err
		}
	}
}

// failed says that the store failed while doing what, and waits before
// the next try: the poll interval, doubling with each failure in a row up
// to 30 s (and half of --shard-timeout). It returns exit 1
// once the store has failed for longer than --shard-timeout: the other
// shards then see this one silent. A failing store never finishes a crawl.
func (s *shard) failed(ctx context.Context, what string, err error) error {
	now := s.now()
	if s.outage.IsZero() {
		s.outage = now
	}
	down := now.Sub(s.outage)
	if down > s.o.Timeout {
		return errorf(StoreFailed, "the store %s has not answered for %v (--shard-timeout): giving up; the crawl is not finished, and running the same command again resumes this shard; last error while %s: %v", s.o.DB, down.Round(time.Second), what, err)
	}
	wait := s.poll
	for range min(s.failures, 10) {
		wait *= 2
	}
	s.failures++
	wait = min(wait, 30*time.Second, s.o.Timeout/2)
	fmt.Fprintf(s.stderr, "%scannot reach the store while %s (retrying in %v): %v\n", s.label, what, wait.Round(time.Millisecond), firstLine(err))
	select {
	case <-ctx.Done():
		return errorf(Interrupted, "stopped while %s; running the same command again resumes this shard", what)
	case <-time.After(wait):
	}
	return nil
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
