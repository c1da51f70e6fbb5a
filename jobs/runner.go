package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/webtable/webtable/webtable"
)

// planForm is the form of the plan this runner writes; a plan of another
// form (an older runner's) is replaced, never misread.
const planForm = 1

// Job is one indexing job. Its splits may run concurrently and in any
// order, each more than once (after a crash): RunSplit must write only
// what its inputs determine, at timestamps its inputs determine.
type Job interface {
	// Name is the job's name (cmd/index's argument): [a-z0-9-].
	Name() string
	// Family is the derived family the job writes, where its progress is
	// kept too.
	Family() string
	// Prepare runs once per process before its splits, with the whole
	// table to read (rank builds its graph there). Jobs with nothing
	// global to do return nil.
	Prepare(ctx context.Context, env *Env) error
	// RunSplit does the job's work on the page rows of s.
	RunSplit(ctx context.Context, env *Env, s Split) error
}

// Split is a contiguous range of page rows, [Start, End); End "" is the
// end of the pages.
type Split struct {
	Index      int
	Start, End string
}

// Contains reports whether key falls in s.
func (s Split) Contains(key string) bool {
	return key >= s.Start && (s.End == "" || key < s.End)
}

// Within returns the part of keys, sorted, that falls in s: keys[lo:hi].
func (s Split) Within(keys []string) (lo, hi int) {
	lo, _ = slices.BinarySearch(keys, s.Start)
	hi = len(keys)
	if s.End != "" {
		hi, _ = slices.BinarySearch(keys, s.End)
	}
	return lo, hi
}

func (s Split) String() string { return strconv.Quote(s.Start) + ".." + strconv.Quote(s.End) }

// Config configures [Run]. It maps one to one on cmd/index's flags.
type Config struct {
	// Shard and Shards split a job between processes: shard I takes the
	// splits whose index is I modulo Shards. The default value is 0 of 1.
	Shard, Shards int
	// Full redoes every row, not only those whose inputs changed.
	Full bool
	// SplitRows cuts a tablet of more rows into splits of at most this
	// many (a keys-only scan of the tablet). The default value is 0: one
	// split per tablet.
	SplitRows int
	// Workers is how many splits run at once. The default value is 1.
	Workers int
	// Log receives one line per skipped row (the first MaxLogged of each
	// job) and per resumed run. nil discards them.
	Log *log.Logger
	// Progress, when set, is called after each split and each phase.
	Progress func(Progress)
	// Now is the clock for the progress records; nil means time.Now.
	Now func() time.Time
}

// MaxLogged bounds the skipped rows a job logs one line each for; the
// rest are counted.
const MaxLogged = 20

// Progress is where a job is.
type Progress struct {
	Job         string
	Phase       string // "preparing", "working", "done"
	Splits      int    // this shard's splits in the run
	SplitsDone  int    // of those, finished (before this process included)
	Rows        int64  // rows read by this process
	RowsPlanned int64  // approximate rows in this shard's splits; -1 unknown
}

// Summary is what a job run did.
type Summary struct {
	Job     string
	Run     string
	Resumed bool // the run was begun before (by a process killed, or another shard)
	// Waiting: this shard's splits were all done and others' are not, so
	// nothing ran (the run finishes when the other shards do).
	Waiting                   bool
	Splits, SplitsBefore, Ran int
	Counts                    CountsSnapshot
	Elapsed                   time.Duration
}

// Env is what a job's calls get: the table, the run's mode, the counters.
type Env struct {
	W    *webtable.WebTable
	Full bool
	// Splits are every split of the run, all shards'; Workers how many
	// may be read at once (a job's Prepare may read them in parallel).
	Splits  []Split
	Workers int
	// Counts are the job's counters; RunSplit adds to them.
	Counts Counts

	log    *log.Logger
	job    string
	mu     sync.Mutex
	logged int
}

// Counts are a job's counters, safe for concurrent use.
type Counts struct {
	mu                                   sync.Mutex
	rows, written, unchanged, bad, other int64
}

// CountsSnapshot is Counts at one moment.
type CountsSnapshot struct {
	// Rows read; Written rows whose derived cells were written; Unchanged
	// rows whose inputs had not changed (or whose result was the one
	// stored); Bad rows skipped for bad input; Other rows with nothing to
	// do (not HTML, not a fetched page).
	Rows, Written, Unchanged, Bad, Other int64
}

// Add adds to the counters.
func (c *Counts) Add(rows, written, unchanged, other int64) {
	c.mu.Lock()
	c.rows += rows
	c.written += written
	c.unchanged += unchanged
	c.other += other
	c.mu.Unlock()
}

// Snapshot reads the counters.
func (c *Counts) Snapshot() CountsSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CountsSnapshot{c.rows, c.written, c.unchanged, c.bad, c.other}
}

// Bad counts a row skipped for bad input and logs one line naming its key
// (the first MaxLogged of the job).
func (e *Env) Bad(key string, reason error) {
	e.Counts.mu.Lock()
	e.Counts.bad++
	e.Counts.mu.Unlock()
	e.mu.Lock()
	e.logged++
	n := e.logged
	e.mu.Unlock()
	if e.log == nil {
		return
	}
	switch {
	case n < MaxLogged:
		e.log.Printf("%s: skipping row %q: %v", e.job, key, reason)
	case n == MaxLogged:
		e.log.Printf("%s: skipping row %q: %v (further skipped rows are only counted)", e.job, key, reason)
	}
}

// Logf logs one line of the job.
func (e *Env) Logf(format string, args ...any) {
	if e.log != nil {
		e.log.Printf(e.job+": "+format, args...)
	}
}

// plan is a run's cut of the page rows, as recorded in the table.
type plan struct {
	Form   int      `json:"form"`
	Full   bool     `json:"full"`
	Starts []string `json:"starts"` // split i is [Starts[i], Starts[i+1]); the last ends with the pages
	Rows   []int64  `json:"rows"`   // approximate rows per split, -1 unknown
}

func (p *plan) splits() []Split {
	out := make([]Split, len(p.Starts))
	for i, s := range p.Starts {
		out[i] = Split{Index: i, Start: s}
		if i+1 < len(p.Starts) {
			out[i].End = p.Starts[i+1]
		}
	}
	return out
}

func decodePlan(b []byte) (*plan, error) {
	var p plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if p.Form != planForm || len(p.Starts) == 0 || p.Starts[0] != "" || len(p.Rows) != len(p.Starts) {
		return nil, fmt.Errorf("a plan of form %d with %d splits", p.Form, len(p.Starts))
	}
	if !slices.IsSorted(p.Starts) {
		return nil, errors.New("a plan whose splits are out of order")
	}
	return &p, nil
}

// Run runs job over w: it resumes the job's unfinished run when there is
// one (of the same Full), skipping the splits recorded done, or records a
// new run cut from the table's tablets; then runs Prepare and this
// shard's remaining splits, recording each as it finishes.
func Run(ctx context.Context, w *webtable.WebTable, job Job, cfg Config) (Summary, error) {
	start := time.Now()
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	if cfg.Shards < 1 || cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
		return Summary{}, fmt.Errorf("jobs: shard %d of %d does not exist", cfg.Shard, cfg.Shards)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
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
	var mine, pending []Split
	var planned int64
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
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range todo {
				if err := job.RunSplit(ctx, env, s); err != nil {
					fail(fmt.Errorf("jobs: %s, split %d (%s): %w", job.Name(), s.Index, s, err))
					continue
				}
				if err := w.MarkSplitDone(ctx, ref, run, s.Index, s.String(), micros(cfg.Now())); err != nil {
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
	sum.Ran = ran
	sum.Counts = env.Counts.Snapshot()
	sum.Elapsed = time.Since(start)
	if first != nil {
		return sum, first
	}
	if err := context.Cause(ctx); err != nil {
		return sum, err
	}
	report("done", ran)
	return sum, nil
}

// openRun finds the run to work on: the recorded one while it has
// splits left (and the same Full), else a new one, recorded in place of
// the old with a swap that only one process of many wins.
func openRun(ctx context.Context, w *webtable.WebTable, ref webtable.JobRef, cfg Config, env *Env) (run string, p *plan, done map[int]bool, resumed bool, err error) {
	for attempt := 0; attempt < 5; attempt++ {
		old, raw, ok, err := w.JobPlan(ctx, ref)
		if err != nil {
			return "", nil, nil, false, err
		}
		if ok {
			p, perr := decodePlan(raw)
			if perr != nil {
				env.Logf("the recorded run %s is unreadable (%v): starting a new one", old, perr)
			} else {
				done, err := doneSet(ctx, w, ref, old, len(p.Starts))
				if err != nil {
					return "", nil, nil, false, err
				}
				if len(done) < len(p.Starts) && p.Full == cfg.Full {
					env.Logf("resuming run %s: %d of %d splits done", old, len(done), len(p.Starts))
					return old, p, done, true, nil
				}
				if len(done) < len(p.Starts) && cfg.Shards > 1 {
					// NB: another shard may be running it; a shard
					// never abandons a run the others share.
					return old, p, done, true, nil
				}
			}
		}
		np, err := newPlan(ctx, w, cfg)
		if err != nil {
			return "", nil, nil, false, err
		}
		b, err := json.Marshal(np)
		if err != nil {
			return "", nil, nil, false, err
		}
		id := runID(cfg.Now())
		swapped, err := w.SwapJobPlan(ctx, ref, old, id, b, micros(cfg.Now()))
		if err != nil {
			return "", nil, nil, false, err
		}
		if !swapped {
			continue // another shard recorded a run first: read it
		}
		if ok {
			if err := w.ClearJobRun(ctx, ref, old); err != nil {
				return "", nil, nil, false, err
			}
		}
		return id, np, map[int]bool{}, false, nil
	}
	return "", nil, nil, false, fmt.Errorf("jobs: %s: the job's run kept changing under this process", ref.Name)
}

func doneSet(ctx context.Context, w *webtable.WebTable, ref webtable.JobRef, run string, n int) (map[int]bool, error) {
	list, err := w.SplitsDone(ctx, ref, run)
	if err != nil {
		return nil, err
	}
	done := make(map[int]bool, len(list))
	for _, i := range list {
		if i < n {
			done[i] = true
		}
	}
	return done, nil
}

// newPlan cuts the page rows at the tablets' boundaries, and big tablets
// every cfg.SplitRows rows.
func newPlan(ctx context.Context, w *webtable.WebTable, cfg Config) (*plan, error) {
	// NB: bounds only: counting the embedded store's tablets costs a
	// key-only scan of each (1.7 s of a 16 s rank run at 100,000 pages).
	tablets, err := w.TabletBounds(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	p := &plan{Form: planForm, Full: cfg.Full}
	for _, t := range tablets {
		if webtable.IsReserved(t.Start) {
			break
		}
		if cfg.SplitRows <= 0 {
			p.Starts, p.Rows = append(p.Starts, t.Start), append(p.Rows, t.Rows)
			continue
		}
		first, n := true, 0
		err := w.RowKeys(ctx, t.Start, t.End, func(key string) bool {
			if first || n == cfg.SplitRows {
				start := key
				if first {
					start = t.Start
				}
				if !utf8.ValidString(start) {
					return true // NB: a plan is JSON; such a key cannot start a split
				}
				p.Starts, p.Rows = append(p.Starts, start), append(p.Rows, 0)
				first, n = false, 0
			}
			n++
			p.Rows[len(p.Rows)-1]++
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("jobs: cutting tablet %q: %w", t.Start, err)
		}
		if first {
			p.Starts, p.Rows = append(p.Starts, t.Start), append(p.Rows, 0)
		}
	}
	if len(p.Starts) == 0 {
		p.Starts, p.Rows = []string{""}, []int64{0}
	}
	p.Starts[0] = ""
	return p, nil
}

func runID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return strconv.FormatInt(now.UnixMicro(), 10) + "-" + hex.EncodeToString(b[:])
}

// micros is t in whole milliseconds, as microseconds (the WebTable's
// timestamps are whole milliseconds; see package webtable).
func micros(t time.Time) webtable.Timestamp { return webtable.Timestamp(t.UnixMilli() * 1000) }

// MemoryLimit is the Go soft memory limit cmd/index runs its jobs under
// unless GOMEMLIMIT sets one. Garbage from the scans (a row's cells are
// built for each row read) otherwise doubles the live heap under Go's
// default GOGC=100: rank over 1M pages and 30M links peaked at 1,318 MiB
// RssAnon without a limit, 810 MiB with this one, and ran faster (80 s
// instead of 121 s, on a machine shared with other work).
const MemoryLimit = 900 << 20
