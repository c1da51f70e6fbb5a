package webtable

import (
	"fmt"
	"time"
)

// ShardWatch decides, from successive looks at the shard records of a
// crawl, when the whole crawl is finished and which shards have gone
// silent. It keeps no state in the store: every shard runs its own.
//
// Each idle shard looks at its own part of the frontier every poll and,
// when it finds nothing it can take, counts one more check (an entry it
// cannot take, such as one of a host that has its --max-pages-per-host,
// stays queued without holding the crawl open). The crawl is finished
// when, from a first look (the baseline) to a later one, every shard stays
// present and idle, no shard's Rounds, Queued or Finished moves, and every
// shard's Checks grows by at least 2. States alone race (a shard can go
// idle, work, and go idle again between two looks), and any work moves a
// counter, since a shard counts before it says it is idle. Two checks, not
// one, because the first may have read the frontier before the baseline
// and only counted after it; the second read it after the baseline, so an
// entry queued by then was seen.
//
// A shard in state finished saw the crawl finished earlier and stopped: it
// counts as idle and needs no checks, so that a shard started again after
// the end finishes too. The caller must first make sure that its part of
// the frontier has not grown past what it left (Held), and otherwise pass
// it as idle (it then holds the crawl open, and goes silent).
//
// A shard is silent when its Beats have not changed for longer than the
// timeout, measured on the watcher's clock from the look that first saw
// the value (never by comparing the writer's clock with ours); a shard
// without a record counts from the watch's first look.
type ShardWatch struct {
	shards  int
	timeout time.Duration
	start   time.Time

	base    []ShardRecord // the baseline look; nil when not all idle
	beats   []int64       // last Beats seen per shard
	changed []time.Time   // when beats[i] was first seen, on our clock
	present []bool
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

// Look takes one look: recs from [WebTable.Shards], now the watcher's
// clock.
func (w *ShardWatch) Look(recs []ShardRecord, now time.Time) Verdict {
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
	allIdle := true
	for i, r := range recs {
		if r.Present && (!w.present[i] || r.Beats != w.beats[i]) {
			w.present[i], w.beats[i], w.changed[i] = true, r.Beats, now
		}
		if now.Sub(w.changed[i]) > w.timeout {
			v.Silent = append(v.Silent, i)
		}
		if allIdle && (!r.Present || (r.State != ShardIdle && r.State != ShardFinished)) {
			allIdle = false
			if r.Present {
				v.Waiting = fmt.Sprintf("shard %d/%d is working", i, w.shards)
			} else {
				v.Waiting = fmt.Sprintf("shard %d/%d has not started", i, w.shards)
			}
		}
	}
	if !allIdle {
		w.base = nil
		return v
	}
	if w.base == nil {
		w.base = append([]ShardRecord(nil), recs...)
		v.Waiting = "every shard is idle: checking that it stays so"
		return v
	}
	v.Finished = true
	for i, r := range recs {
		b := w.base[i]
		if b.Rounds != r.Rounds || b.Queued != r.Queued || b.Finished != r.Finished {
			w.base = append(w.base[:0], recs...)
			return Verdict{Silent: v.Silent, Waiting: fmt.Sprintf("shard %d/%d worked since the last look", i, w.shards)}
		}
		if r.State != ShardFinished && r.Checks < b.Checks+2 && v.Finished {
			v.Finished = false
			v.Waiting = "every shard is idle: checking that it stays so"
		}
	}
	return v
}
