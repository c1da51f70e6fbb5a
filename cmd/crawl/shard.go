package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// defaultShardTimeout is --shard-timeout's default.
const defaultShardTimeout = 3 * time.Minute

// pagesPerReservation bounds one reservation of the shared --max-pages
// budget; see reservation.
const pagesPerReservation = 100

// shardPoll is how often an idle shard looks at the store, and how often
// every shard writes a heartbeat: a twentieth of the timeout, between 20 ms
// and 1 s.
func shardPoll(timeout time.Duration) time.Duration {
	return min(max(timeout/20, 20*time.Millisecond), time.Second)
}

// reservation is how many pages of a --max-pages budget of limit a shard
// of shards takes at a time: small, so that a shard killed with a
// reservation in hand costs the crawl few pages, but not so small that
// shards keep stopping to ask for more.
func reservation(limit, shards int) int64 {
	return int64(min(max(limit/(4*shards), 1), pagesPerReservation))
}

// shard runs one shard of a crawl until the whole crawl is finished: it
// crawls its own part of the frontier in rounds, and between rounds
// watches the store until other shards queue work for it or every shard is
// done (see webtable.ShardWatch).
type shard struct {
	o      *options
	w      *webtable.WebTable
	stderr io.Writer
	label  string
	poll   time.Duration
	now    func() time.Time
	counts *countingStore

	// mu orders the record's updates: the heartbeat's counts and a change
	// of state never interleave.
	mu sync.Mutex

	// held is how many entries of its part the shard left queued after a
	// round that took none (-1: unknown, after a round that took some);
	// spent is whether --max-pages was spent at the last look.
	held  int64
	spent bool

	outage   time.Time // when the store started failing; zero when it answers
	failures int       // calls failed since outage
}

// crawlShard runs shard o.cfg.Shard of o.cfg.Shards until the whole crawl
// is finished (nil), a shard goes silent (exit 3), ctx is cancelled (exit
// 130), or the store stays unreachable for longer than --shard-timeout
// (exit 1).
func crawlShard(ctx context.Context, o *options, w *webtable.WebTable, seedURLs []string, stderr io.Writer) error {
	// The heartbeat, the crawler's workers and the loop all write to it.
	stderr = &lockedWriter{w: stderr}
	// The links to other shards' hosts are noted in their inboxes, which
	// their rounds read as they go (crawler.HostFeed).
	if err := w.SetShard(o.cfg.Shard, o.cfg.Shards); err != nil {
		return fail(exitUsage, "%v", err)
	}
	st := newStore(w)
	// After Ctrl-C the pages in flight are stored, within storeGrace.
	defer st.cutOffAfter(ctx, o.deps.storeGrace)()
	s := &shard{
		o: o, w: w, stderr: stderr,
		label:  fmt.Sprintf("shard %d/%d: ", o.cfg.Shard, o.cfg.Shards),
		poll:   shardPoll(o.shardTimeout),
		now:    time.Now,
		counts: &countingStore{store: st},
		held:   -1,
	}
	cfg := o.cfg
	if len(cfg.AllowDomains) == 0 {
		// Every round allows the seeds' domains, not only those of the
		// entries it happens to find queued.
		for _, raw := range seedURLs {
			if u, err := urlkey.Canonical(raw); err == nil {
				cfg.AllowDomains = append(cfg.AllowDomains, crawler.RegistrableDomain(u.Hostname()))
			}
		}
	}
	p := newProgress(stderr, s.label)
	var total crawler.Stats
	var totalMu sync.Mutex
	cfg.Progress = func(st crawler.Stats) {
		totalMu.Lock()
		t := addStats(total, st)
		totalMu.Unlock()
		p.update(t)
	}
	cfg.Log = func(line string) {
		fmt.Fprintf(stderr, "crawl: %s%s\n", s.label, line)
	}
	closeRenderer, err := startRenderer(ctx, o, w, &cfg, stderr) // render.go
	if err != nil {
		return err
	}
	defer closeRenderer()
	c, err := crawler.New(cfg, s.counts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer c.Close()

	beatCtx, stopBeats := context.WithCancel(context.WithoutCancel(ctx))
	beating := make(chan struct{})
	go func() {
		defer close(beating)
		s.beat(beatCtx)
	}()
	defer func() {
		stopBeats()
		<-beating // no heartbeat, and no line from one, after we return
	}()

	watch := webtable.NewShardWatch(o.cfg.Shards, o.shardTimeout)
	seeds := seedURLs
	rounds := 0
	for {
		if err := s.retry(ctx, "saying this shard is working", func(ctx context.Context) error {
			return s.update(ctx, webtable.ShardUpdate{State: webtable.ShardWorking, Round: true})
		}); err != nil {
			return err
		}
		// NB: counted before the round, since only the entries queued
		// before it began are surely seen by it; see leftQueued.
		var before int64
		if err := s.retry(ctx, "counting the entries queued", func(ctx context.Context) error {
			var err error
			before, err = s.w.QueuedOf(ctx, s.o.cfg.Shard, s.o.cfg.Shards)
			return err
		}); err != nil {
			return err
		}
		st, err := s.round(ctx, c, seeds)
		totalMu.Lock()
		total = addStats(total, st)
		totalMu.Unlock()
		var ee *exitError
		switch {
		case errors.As(err, &ee):
			return err // the store stayed away while reserving pages, or Ctrl-C
		case err == nil:
			seeds = nil
			rounds++
			if hook := o.deps.shardRoundDone; hook != nil {
				hook(ctx, o.cfg.Shard, w)
			}
			if st.Fetched+st.Errors > 0 {
				fmt.Fprintf(stderr, "%sround %d: %s\n", s.label, rounds, status(st))
				s.held = -1
				// NB: work that came during the round (the other shards
				// queue links to our hosts all the time) starts the next
				// round now, not a poll later: a crawl whose links cross
				// shards goes a hop per round.
				var more bool
				if err := s.retry(ctx, "looking for work", func(ctx context.Context) error {
					var err error
					more, err = s.takeable(ctx)
					return err
				}); err != nil {
					return err
				}
				if more {
					continue
				}
			} else if err := s.retry(ctx, "counting the entries left queued", func(ctx context.Context) error {
				q, err := s.w.QueuedOf(ctx, s.o.cfg.Shard, s.o.cfg.Shards)
				s.held = leftQueued(before, q)
				return err
			}); err != nil {
				return err
			}
		case errors.Is(err, crawler.ErrSeed) || errors.Is(err, crawler.ErrConfig):
			return fail(exitUsage, "%v", err)
		case ctx.Err() != nil && !errors.Is(err, crawler.ErrStore):
			p.finish(total)
			return fail(exitInterrupted, "stopped; pages in flight were stored, and running the same command again resumes this shard")
		default:
			// The store failed under the crawl: what was in flight stays
			// queued, and the round is run again once the store answers.
			if err := s.failed(ctx, "crawling", err); err != nil {
				return err
			}
			continue
		}
		if err := s.retry(ctx, "saying this shard is idle", func(ctx context.Context) error {
			return s.update(ctx, webtable.ShardUpdate{State: webtable.ShardIdle, Held: max(s.held, 0)})
		}); err != nil {
			return err
		}
		done, err := s.wait(ctx, watch)
		if err != nil {
			return err
		}
		if done != nil {
			if err := s.retry(ctx, "saying this shard is finished", func(ctx context.Context) error {
				q, err := s.w.QueuedOf(ctx, s.o.cfg.Shard, s.o.cfg.Shards)
				if err != nil {
					return err
				}
				return s.update(ctx, webtable.ShardUpdate{State: webtable.ShardFinished, Held: q})
			}); err != nil {
				return err
			}
			p.finish(total)
			fmt.Fprint(stderr, crawlTotals(done, rounds))
			return nil
		}
	}
}

// round crawls this shard's part of the frontier once, within its share
// of --max-pages.
func (s *shard) round(ctx context.Context, c *crawler.Crawler, seeds []string) (crawler.Stats, error) {
	limit := s.o.cfg.MaxPages
	if limit <= 0 {
		return c.RunLimited(ctx, seeds, 0)
	}
	var got int64
	if err := s.retry(ctx, "reserving pages of --max-pages", func(ctx context.Context) error {
		var err error
		got, err = s.w.ReservePages(ctx, s.o.cfg.Shards, int64(limit), reservation(limit, s.o.cfg.Shards))
		return err
	}); err != nil {
		return crawler.Stats{}, err
	}
	if got == 0 {
		return crawler.Stats{}, nil // the budget is spent
	}
	st, err := c.RunLimited(ctx, seeds, int(got))
	if unused := got - st.Fetched; unused > 0 {
		if rerr := s.retry(context.WithoutCancel(ctx), "giving back unused pages of --max-pages", func(cctx context.Context) error {
			return s.w.ReturnPages(cctx, s.o.cfg.Shards, unused)
		}); rerr != nil && err == nil {
			err = rerr
		}
	}
	return st, err
}

// wait watches the store until this shard has work again (nil, nil), the
// crawl is finished (its records), or a shard is silent (exit 3).
func (s *shard) wait(ctx context.Context, watch *webtable.ShardWatch) ([]webtable.ShardRecord, error) {
	n := s.o.cfg.Shards
	lastSaid := ""
	for {
		select {
		case <-ctx.Done():
			return nil, fail(exitInterrupted, "stopped while waiting for the other shards; running the same command again resumes this shard")
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
	i, n := s.o.cfg.Shard, s.o.cfg.Shards
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
	if s.o.cfg.MaxPages <= 0 {
		return false, nil
	}
	n, err := s.w.PagesReserved(ctx, s.o.cfg.Shards)
	return n >= int64(s.o.cfg.MaxPages), err
}

// missing returns exit 3 naming the first silent shard that keeps the
// crawl from finishing: every one but those that stopped after seeing the
// crawl finished (and got no work since). A silent idle shard counts: the
// crawl is finished only once every shard has looked at its part again.
func (s *shard) missing(ctx context.Context, recs []webtable.ShardRecord, silent []int) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout(s.o.shardTimeout))
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
		return fail(exitShardGone, "shard %d/%d has been silent for more than --shard-timeout %v (%s), and %d of its pages are still queued: start it again (the same command with --shard %d/%d) and the crawl carries on",
			i, r.Shards, s.o.shardTimeout, seen, queued, i, r.Shards)
	}
	return nil
}

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
		cctx, cancel := context.WithTimeout(ctx, callTimeout(s.o.shardTimeout))
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
	err := s.w.UpdateShard(ctx, s.o.cfg.Shard, s.o.cfg.Shards, u, s.now())
	if err != nil {
		s.counts.giveBack(q, f)
	}
	return err
}

// callTimeout bounds one call of a shard's own to the store (a Cloud
// Bigtable client waits for ever for a server that does not answer).
func callTimeout(shardTimeout time.Duration) time.Duration {
	return min(max(shardTimeout/2, time.Second), 30*time.Second)
}

// retry calls fn until it succeeds, backing off while the store fails
// (see failed). fn gets a context that ends after callTimeout.
func (s *shard) retry(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout(s.o.shardTimeout))
		err := fn(cctx)
		cancel()
		if err == nil {
			s.outage, s.failures = time.Time{}, 0
			return nil
		}
		if ctx.Err() != nil {
			return fail(exitInterrupted, "stopped while %s; running the same command again resumes this shard", what)
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
	if down > s.o.shardTimeout {
		return fail(exitStoreFailed, "the store %s has not answered for %v (--shard-timeout): giving up; the crawl is not finished, and running the same command again resumes this shard; last error while %s: %v", s.o.db, down.Round(time.Second), what, err)
	}
	wait := s.poll
	for range min(s.failures, 10) {
		wait *= 2
	}
	s.failures++
	wait = min(wait, 30*time.Second, s.o.shardTimeout/2)
	fmt.Fprintf(s.stderr, "%scannot reach the store while %s (retrying in %v): %v\n", s.label, what, wait.Round(time.Millisecond), firstLine(err))
	select {
	case <-ctx.Done():
		return fail(exitInterrupted, "stopped while %s; running the same command again resumes this shard", what)
	case <-time.After(wait):
	}
	return nil
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// crawlTotals is what a shard prints when the whole crawl is finished.
func crawlTotals(recs []webtable.ShardRecord, rounds int) string {
	var queued, finished int64
	for _, r := range recs {
		queued += r.Queued
		finished += r.Finished
	}
	return fmt.Sprintf("the whole crawl is finished: %d shards fetched %d pages (done or failed) and queued %d; this shard worked %d rounds\n",
		len(recs), finished, queued, rounds)
}

// addStats adds b's counts to a's.
func addStats(a, b crawler.Stats) crawler.Stats {
	a.Fetched += b.Fetched
	a.NewVersions += b.NewVersions
	a.Unchanged += b.Unchanged
	a.Redirects += b.Redirects
	a.Errors += b.Errors
	a.Traps += b.Traps
	a.Retries += b.Retries
	a.Bytes += b.Bytes
	a.Elapsed += b.Elapsed
	a.Idle += b.Idle
	a.IdleReady += b.IdleReady
	a.Queued, a.InFlight, a.Done = b.Queued, b.InFlight, b.Done
	if len(b.ErrorsByKind) > 0 {
		m := maps.Clone(a.ErrorsByKind)
		if m == nil {
			m = map[crawler.ErrorKind]int64{}
		}
		for k, v := range b.ErrorsByKind {
			m[k] += v
		}
		a.ErrorsByKind = m
	}
	return a
}

// lockedWriter serialises writes to w, one whole line (one Write) at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
