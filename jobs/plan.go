package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/webtable/webtable/webtable"
)

// planForm is the form of the plan this runner writes; a plan of another
// form (an older runner's) is replaced, never misread.
const planForm = 1

// plan is a run's cut of the page rows, as recorded in the table.
type plan struct {
	Form   int      `json:"form"`
	Full   bool     `json:"full"`
	Starts []string `json:"starts"` // split i is [Starts[i], Starts[i+1]); the last ends with the pages
	Rows   []int64  `json:"rows"`   // approximate rows per split, -1 unknown
}

// splits are the plan's splits, in order.
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

// decodePlan reads a recorded plan, refusing one of another form or
// whose splits do not cover the pages in order.
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

// doneSet is the set of the run's splits recorded done, among its first n.
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

// runID names a new run: its start in microseconds and 8 random hex
// digits, so that two shards starting at once record distinct runs.
func runID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return strconv.FormatInt(now.UnixMicro(), 10) + "-" + hex.EncodeToString(b[:])
}

// micros is t in whole milliseconds, as microseconds (the WebTable's
// timestamps are whole milliseconds; see package webtable).
func micros(t time.Time) webtable.Timestamp { return webtable.Timestamp(t.UnixMilli() * 1000) }
