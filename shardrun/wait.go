package shardrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/webtable/webtable/webtable"
)

// wait watches the store until this shard has work again (nil, nil), the
// crawl is finished (its records), or a shard is silent (exit 3).
func (s *shard) wait(ctx context.Context, watch *webtable.ShardWatch) ([]webtable.ShardRecord, error) {
	n := s.o.Crawl.Shards
	lastSaid := ""
	for {
		select {
		case <-ctx.Done():
			return nil, errorf(Interrupted, "stopped while waiting for the other shards; running the same command again resumes this shard")
		case <-time.After(s.poll):
		}
		var recs []webtable.ShardRecord
		var mine bool
		err := s.retry(ctx, "looking for work", func(ctx context.Context) error {
			var err error
			if mine, err = s.takeable(ctx); err != nil || mine {
				return err
			}
			// NB: counted after the look, so that a watcher that sees two
			// more checks knows one look came after it last read us.
			if err := s.update(ctx, webtable.ShardUpdate{Checked: true}); err != nil {
				return err
			}
			if recs, err = s.w.Shards(ctx, n); err != nil {
				return err
			}
			for j, r := range recs {
				if r.State != webtable.ShardFinished {
					continue
				}
				q, err := s.w.QueuedOf(ctx, j, n)
				if err != nil {
					return err
				}
				if q > r.Held {
					// Work came for it after it stopped: it must run again.
					recs[j].State = webtable.ShardIdle
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if mine {
			return nil, nil
		}
		v := watch.Look(recs, s.now())
		if v.Finished {
			return recs, nil
		}
		if v.Waiting != lastSaid && !strings.HasPrefix(v.Waiting, "every shard is idle") {
			fmt.Fprintf(s.stderr, "%swaiting: %s\n", s.label, v.Waiting)
			lastSaid = v.Waiting
		}
		if len(v.Silent) > 0 {
			if err := s.missing(ctx, recs, v.Silent); err != nil {
				return nil, err
			}
		}
	}
}

// takeable reports whether this shard's part of the frontier holds
// entries it can take: any at all after a round that took some, only new
// ones after a round that took none (what it left then stays queued on
// purpose: hosts that have their --max-pages-per-host, or that asked for a
// long pause), none while --max-pages is spent. While the shard is idle
// only it deletes entries of its part, so new entries show as a larger
// count.
func (s *shard) takeable(ctx context.Context) (bool, error) {
	spent, err := s.budgetSpent(ctx)
	if err != nil || spent {
		s.spent = spent
		return false, err
	}
	if s.spent {
		s.spent, s.held = false, -1 // pages given back: try everything again
	}
	i, n := s.o.Crawl.Shard, s.o.Crawl.Shards
	if s.held < 0 {
		return s.w.Pending(ctx, i, n, nil)
	}
	q, err := s.w.QueuedOf(ctx, i, n)
	if err != nil || q > s.held {
		return q > s.held, err
	}
	s.held = q
	return false, nil
}

// leftQueued is what a round that took nothing leaves queued on purpose
// (see shard.held), from the counts of this shard's part of the frontier
// before the round began and after it ended: that count when the two agree,
// else -1 (unknown: look again). NB: the count after the round alone is
// not enough: an entry that another shard queued after the round last read
// the frontier was never seen by it, and holding it would leave it queued
// for ever while the shards agree that the crawl is finished (issue 17:
// a crawl that stopped after the seed's host). A count that changed means
// entries came (or stale ones were dropped) during the round, so the shard
// runs another round rather than guess which.
func leftQueued(before, after int64) int64 {
	if before != after {
		return -1
	}
	return after
}

// budgetSpent reports whether --max-pages is set and every page of it is
// reserved or used.
func (s *shard) budgetSpent(ctx context.Context) (bool, error) {
	if s.o.Crawl.MaxPages <= 0 {
		return false, nil
	}
	n, err := s.w.PagesReserved(ctx, s.o.Crawl.Shards)
	return n >= int64(s.o.Crawl.MaxPages), err
}

// missing returns exit 3 naming the first silent shard that keeps the
// crawl from finishing: every one but those that stopped after seeing the
// crawl finished (and got no work since). A silent idle shard counts: the
// crawl is finished only once every shard has looked at its part again.
func (s *shard) missing(ctx context.Context, recs []webtable.ShardRecord, silent []int) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout(s.o.Timeout))
	defer cancel()
	spent, err := s.budgetSpent(ctx)
	if err != nil {
		return nil // looked at again on the next poll
	}
	for _, i := range silent {
		r := recs[i]
		queued, err := s.w.QueuedOf(ctx, i, r.Shards)
		if err != nil {
			return nil
		}
		if spent {
			queued = 0
		}
		if r.State == webtable.ShardFinished {
			continue // it saw the crawl finished, and nothing came for it since
		}
		seen := "it never started"
		if r.Present {
			seen = fmt.Sprintf("its last heartbeat, by its own clock, was at %s, while %s", r.Heartbeat.Format(time.RFC3339), r.State)
		}
		return errorf(ShardGone, "shard %d/%d has been silent for more than --shard-timeout %v (%s), and %d of its pages are still queued: start it again (the same command with --shard %d/%d) and the crawl carries on",
			i, r.Shards, s.o.Timeout, seen, queued, i, r.Shards)
	}
	return nil
}
