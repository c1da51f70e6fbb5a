package jobs

import (
	"log"
	"sync"

	"github.com/webtable/webtable/webtable"
)

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
