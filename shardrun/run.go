package shardrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// DefaultTimeout is the default of Options.Timeout (--shard-timeout).
const DefaultTimeout = 3 * time.Minute

// pagesPerReservation bounds one reservation of the shared --max-pages
// budget; see reservation.
const pagesPerReservation = 100

// poll is how often an idle shard looks at the store, and how often
// every shard writes a heartbeat: a twentieth of the timeout, between 20 ms
// and 1 s.
func poll(timeout time.Duration) time.Duration {
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
	o      *Options
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

// newShard returns the shard o.Crawl.Shard of o.Crawl.Shards of w's
// crawl, saying what goes wrong on stderr, as it is before its first
// round: counting what w's CrawlStore queues and fetches, with how many
// entries it holds back unknown (held -1).
func newShard(w *webtable.WebTable, o *Options, stderr io.Writer) *shard {
	return &shard{
		o: o, w: w, stderr: stderr,
		label:  Label(o.Crawl.Shard, o.Crawl.Shards),
		poll:   poll(o.Timeout),
		now:    time.Now,
		counts: &countingStore{CrawlStore: w.CrawlStore()},
		held:   -1,
	}
}

// Run runs shard o.Crawl.Shard of o.Crawl.Shards into w until the whole
// crawl is finished (nil), a shard goes silent (an [Error] of kind
// ShardGone), ctx is cancelled (Interrupted), or the store stays
// unreachable for longer than o.Timeout (StoreFailed). The first round
// queues seedURLs.
func Run(ctx context.Context, w *webtable.WebTable, seedURLs []string, o Options) error {
	stderr := o.Stderr
	// The links to other shards' hosts are noted in their inboxes, which
	// their rounds read as they go (crawlstore.HostFeed).
	if err := w.SetShard(o.Crawl.Shard, o.Crawl.Shards); err != nil {
		return errorf(Usage, "%v", err)
	}
	s := newShard(w, &o, stderr)
	cfg := o.Crawl
	if len(cfg.AllowDomains) == 0 {
		// Every round allows the seeds' domains, not only those of the
		// entries it happens to find queued.
		for _, raw := range seedURLs {
			if u, err := urlkey.Canonical(raw); err == nil {
				cfg.AllowDomains = append(cfg.AllowDomains, crawler.RegistrableDomain(u.Hostname()))
			}
		}
	}
	var total crawler.Stats
	var totalMu sync.Mutex
	cfg.Progress = func(st crawler.Stats) {
		totalMu.Lock()
		t := total.Add(st)
		totalMu.Unlock()
		o.Report.Update(t)
	}
	cfg.Log = func(line string) {
		fmt.Fprintf(stderr, "crawl: %s%s\n", s.label, line)
	}
	c, err := crawler.New(cfg, s.counts)
	if err != nil {
		return errorf(Usage, "%v", err)
	}
	defer c.Close()
	if o.Started != nil {
		o.Started(c)
	}

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
	return s.loop(ctx, c, seedURLs, &total, &totalMu)
}

// loop runs rounds, and watches the store between them, until the run
// ends (see Run); total adds up the rounds' statistics.
func (s *shard) loop(ctx context.Context, c *crawler.Crawler, seedURLs []string, total *crawler.Stats, totalMu *sync.Mutex) error {
	o := s.o
	watch := webtable.NewShardWatch(o.Crawl.Shards, o.Timeout)
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
			before, err = s.w.QueuedOf(ctx, s.o.Crawl.Shard, s.o.Crawl.Shards)
			return err
		}); err != nil {
			return err
		}
		st, err := s.round(ctx, c, seeds)
		totalMu.Lock()
		*total = total.Add(st)
		totalMu.Unlock()
		var ee *Error
		switch {
		case errors.As(err, &ee):
			return err // the store stayed away while reserving pages, or Ctrl-C
		case err == nil:
			seeds = nil
			rounds++
			more, err := s.roundOver(ctx, rounds, st, before)
			if err != nil {
				return err
			}
			if more {
				continue
			}
		case errors.Is(err, crawler.ErrSeed) || errors.Is(err, crawler.ErrConfig):
			return errorf(Usage, "%v", err)
		case ctx.Err() != nil && !errors.Is(err, crawler.ErrStore):
			o.Report.Finish(*total)
			return errorf(Interrupted, "stopped; pages in flight were stored, and running the same command again resumes this shard")
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
				q, err := s.w.QueuedOf(ctx, s.o.Crawl.Shard, s.o.Crawl.Shards)
				if err != nil {
					return err
				}
				return s.update(ctx, webtable.ShardUpdate{State: webtable.ShardFinished, Held: q})
			}); err != nil {
				return err
			}
			o.Report.Finish(*total)
			fmt.Fprint(s.stderr, crawlTotals(done, rounds))
			return nil
		}
	}
}

// roundOver is what follows round n when it ended without error (st its
// statistics, before the count of entries queued when it began): more
// is whether the shard has work for another round at once. A round that
// took nothing notes what it left queued on purpose (see leftQueued).
func (s *shard) roundOver(ctx context.Context, n int, st crawler.Stats, before int64) (more bool, err error) {
	if hook := s.o.RoundDone; hook != nil {
		hook(ctx, s.o.Crawl.Shard, s.w)
	}
	if st.Fetched+st.Errors == 0 {
		return false, s.retry(ctx, "counting the entries left queued", func(ctx context.Context) error {
			q, err := s.w.QueuedOf(ctx, s.o.Crawl.Shard, s.o.Crawl.Shards)
			s.held = leftQueued(before, q)
			return err
		})
	}
	s.o.Report.Round(n, st)
	s.held = -1
	// NB: work that came during the round (the other shards queue links to
	// our hosts all the time) starts the next round now, not a poll later:
	// a crawl whose links cross shards goes a hop per round.
	err = s.retry(ctx, "looking for work", func(ctx context.Context) error {
		var err error
		more, err = s.takeable(ctx)
		return err
	})
	return more, err
}

// round crawls this shard's part of the frontier once, within its share
// of --max-pages.
func (s *shard) round(ctx context.Context, c *crawler.Crawler, seeds []string) (crawler.Stats, error) {
	limit := s.o.Crawl.MaxPages
	if limit <= 0 {
		return c.RunLimited(ctx, seeds, 0)
	}
	var got int64
	if err := s.retry(ctx, "reserving pages of --max-pages", func(ctx context.Context) error {
		var err error
		got, err = s.w.ReservePages(ctx, s.o.Crawl.Shards, int64(limit), reservation(limit, s.o.Crawl.Shards))
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
			return s.w.ReturnPages(cctx, s.o.Crawl.Shards, unused)
		}); rerr != nil && err == nil {
			err = rerr
		}
	}
	return st, err
}
