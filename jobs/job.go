package jobs

import (
	"context"
	"log"
	"slices"
	"strconv"
	"time"
)

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

// String is the split's bounds, quoted: "start".."end".
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

// MemoryLimit is the Go soft memory limit cmd/index runs its jobs under
// unless GOMEMLIMIT sets one. Garbage from the scans (a row's cells are
// built for each row read) otherwise doubles the live heap under Go's
// default GOGC=100: rank over 1M pages and 30M links peaked at 1,318 MiB
// RssAnon without a limit, 810 MiB with this one, and ran faster (80 s
// instead of 121 s, on a machine shared with other work).
const MemoryLimit = 900 << 20
