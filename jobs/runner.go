package jobs

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/webtable/webtable/webtable"
)

// Run runs job over w: it resumes the job's unfinished run when there is
// one (of the same Full), skipping the splits recorded done, or records a
// new run cut from the table's tablets; then runs Prepare and this
// shard's remaining splits, recording each as it finishes.
func Run(ctx context.Context, w *webtable.WebTable, job Job, cfg Config) (Summary, error) {
	start := time.Now()
	cfg, err := withDefaults(cfg)
	if err != nil {
		return Summary{}, err
	}
	workers := max(cfg.Workers, 1)
	ref := webtable.JobRef{Name: job.Name(), Family: job.Family()}
	env := &Env{W: w, log: cfg.Log, job: job.Name()}
	sum := Summary{Job: job.Name()}

	run, p, done, resumed, err := openRun(ctx, w, ref, cfg, env)
	if err != nil {
		return sum, err
	}
	env.Full = p.Full
	env.Splits, env.Workers = p.splits(), workers
	sum.Run, sum.Resumed = run, resumed
	mine, pending, planned := shardSplits(p, done, cfg)
	sum.Splits, sum.SplitsBefore = len(mine), len(mine)-len(pending)
	report := func(phase string, doneNow int) {
		if cfg.Progress != nil {
			cfg.Progress(Progress{Job: job.Name(), Phase: phase, Splits: len(mine), SplitsDone: sum.SplitsBefore + doneNow,
				Rows: env.Counts.Snapshot().Rows, RowsPlanned: planned})
		}
	}
	if len(pending) == 0 {
		sum.Waiting = len(done) < len(p.Starts)
		report("done", 0)
		sum.Elapsed = time.Since(start)
		return sum, nil
	}
	report("preparing", 0)
	if err := job.Prepare(ctx, env); err != nil {
		return sum, fmt.Errorf("jobs: %s: %w", job.Name(), err)
	}
	report("working", 0)

	ran, err := runSplits(ctx, job, env, ref, run, cfg.Now, pending, report)
	sum.Ran = ran
	sum.Counts = env.Counts.Snapshot()
	sum.Elapsed = time.Since(start)
	if err != nil {
		return sum, err
	}
	report("done", ran)
	return sum, nil
}

// withDefaults is cfg with its defaults filled in (Shards 1, Now
// time.Now), or an error for a shard that does not exist.
func withDefaults(cfg Config) (Config, error) {
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	if cfg.Shards < 1 || cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
		return cfg, fmt.Errorf("jobs: shard %d of %d does not exist", cfg.Shard, cfg.Shards)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg, nil
}

// shardSplits returns the splits of p that are this shard's (mine), those
// of them not done (pending), and the rows planned in pending (-1 when a
// split's count is unknown).
func shardSplits(p *plan, done map[int]bool, cfg Config) (mine, pending []Split, planned int64) {
	for _, s := range p.splits() {
		if s.Index%cfg.Shards != cfg.Shard {
			continue
		}
		mine = append(mine, s)
		if done[s.Index] {
			continue
		}
		pending = append(pending, s)
		if planned >= 0 && p.Rows[s.Index] >= 0 {
			planned += p.Rows[s.Index]
		} else {
			planned = -1
		}
	}
	return mine, pending, planned
}

// runSplits runs job's pending splits of run on env.Workers goroutines,
// records each done at now(), and reports progress after each. It
// returns how many ran and the first error (which stops the others), or
// the cause of ctx's end.
func runSplits(ctx context.Context, job Job, env *Env, ref webtable.JobRef, run string, now func() time.Time, pending []Split, report func(phase string, doneNow int)) (int, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	todo := make(chan Split)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		ran   int
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel(err)
	}
	for range env.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range todo {
				if err := job.RunSplit(ctx, env, s); err != nil {
					fail(fmt.Errorf("jobs: %s, split %d (%s): %w", job.Name(), s.Index, s, err))
					continue
				}
				if err := env.W.MarkSplitDone(ctx, ref, run, s.Index, s.String(), micros(now())); err != nil {
					fail(fmt.Errorf("jobs: %s: %w", job.Name(), err))
					continue
				}
				mu.Lock()
				ran++
				n := ran
				mu.Unlock()
				report("working", n)
			}
		}()
	}
feed:
	for _, s := range pending {
		select {
		case todo <- s:
		case <-ctx.Done():
			break feed
		}
	}
	close(todo)
	wg.Wait()
	if first != nil {
		return ran, first
	}
	return ran, context.Cause(ctx)
}
