package webtable

import (
	"fmt"
	"time"
)

// ShardWatch decides, from successive looks at the shard records of a
// crawl, when the whole crawl is finished and which shards have gone
// silent. It keeps no state in the store: every shard runs its own.
//
// The crawl is finished when two looks in a row find every shard present
// and idle, nothing pending in the frontier, and every shard's Rounds,
// Queued and Finished unchanged between them. One look is not enough:
// states alone race (a shard can go idle, work, and go idle again between
// two looks, or write an entry just behind a scan of the frontier), and
// any work between the looks moves a counter, since a shard counts before
// it says it is idle.
//
// A shard is silent when its Beats have not changed for longer than the
// timeout, measured on the watcher's clock from the look that first saw
// the value (never by comparing the writer's clock with ours); a shard
// without a record counts from the watch's first look.
type ShardWatch struct {
	shards  int
	timeout time.Duration
	start   time.Time

	prev     []ShardRecord // the previous look, nil before the first
	prevIdle bool          // the previous look found all idle and nothing pending
	beats    []int64       // last Beats seen per shard
	changed  []time.Time   // when beats[i] was first seen, on our clock
	present  []bool
}

// NewShardWatch returns a watch of a crawl of shards shards that calls a
// shard silent after timeout.
func NewShardWatch(shards int, timeout time.Duration) *ShardWatch {
	return &ShardWatch{
		shards:  shards,
		timeout: timeout,
		beats:   make([]int64, shards),
		changed: make([]time.Time, shards),
		present: make([]bool, shards),
	}
}

// Verdict is what one look concluded.
type Verdict struct {
	// Finished is true when the whole crawl is finished.
	Finished bool
	// Silent lists the shards silent for longer than the timeout, in
	// order.
	Silent []int
	// Waiting says, for people, why the crawl is not finished yet ("" when
	// it is).
	Waiting string
}

// Look takes one look: recs from [WebTable.Shards], pending is whether the
// frontier holds anything still to fetch (for any shard), now is the
// watcher's clock.
func (w *ShardWatch) Look(recs []ShardRecord, pending bool, now time.Time) Verdict {
	if len(recs) != w.shards {
		return Verdict{Waiting: fmt.Sprintf("read %d shard records for a crawl of %d shards", len(recs), w.shards)}
	}
	if w.start.IsZero() {
		w.start = now
		for i := range w.changed {
			w.changed[i] = now
		}
	}
	var v Verdict
	allIdle := !pending
	if pending {
		v.Waiting = "pages are still queued"
	}
	for i, r := range recs {
		if r.Present && (!w.present[i] || r.Beats != w.beats[i]) {
			w.present[i], w.beats[i], w.changed[i] = true, r.Beats, now
		}
		if now.Sub(w.changed[i]) > w.timeout {
			v.Silent = append(v.Silent, i)
		}
		if !r.Present || r.State != ShardIdle {
			if allIdle {
				if r.Present {
					v.Waiting = fmt.Sprintf("shard %d/%d is working", i, w.shards)
				} else {
					v.Waiting = fmt.Sprintf("shard %d/%d has not started", i, w.shards)
				}
			}
			allIdle = false
		}
	}
	if allIdle && w.prevIdle {
		v.Finished = true
		for i, r := range recs {
			p := w.prev[i]
			if p.Rounds != r.Rounds || p.Queued != r.Queued || p.Finished != r.Finished {
				v.Finished = false
				v.Waiting = fmt.Sprintf("shard %d/%d worked since the last look", i, w.shards)
				break
			}
		}
	} else if allIdle {
		v.Waiting = "every shard is idle: checking once more"
	}
	w.prev = append(w.prev[:0], recs...)
	w.prevIdle = allIdle
	return v
}
