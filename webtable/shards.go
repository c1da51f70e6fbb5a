package webtable

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/urlkey"
)

// Shard records. A crawl split into N shards keeps, beside its frontier,
// one row per shard and one budget row, under ShardPrefix:
//
//	~shard/<N>/<I>       shard I of N (4 decimal digits each)
//	~shard/<N>/budget    the pages reserved from --max-pages by all shards
//
// A shard's row holds, in family fetch: state ("working" or "idle", with
// the writer's clock as heartbeat, for people to read), and four 64-bit
// big-endian counters that only grow, each updated with ReadModifyWrite so
// that a restarted shard carries on from the last value: beats (one per
// heartbeat), rounds (one each time the shard starts working), queued
// (frontier entries it wrote), finished (entries it fetched and removed)
// and checks (one each time an idle shard looked at its part of the
// frontier and found nothing it can take). [ShardWatch] reads them to decide that the whole crawl is
// finished, or that a shard has gone silent.
const (
	// ShardPrefix starts every shard record's row key.
	ShardPrefix = ReservedPrefix + "shard/"
)

// The qualifiers of a shard record.
const (
	colShardState     = "state"
	colShardHeartbeat = "heartbeat"
	colShardBeats     = "beats"
	colShardRounds    = "rounds"
	colShardQueued    = "queued"
	colShardFinished  = "finished"
	colShardChecks    = "checks"
	colShardHeld      = "held"
	colShardTimeout   = "timeout"
	colBudgetPages    = "pages"
)

// ShardState is what a shard says it is doing.
type ShardState string

// The states of a shard.
const (
	// ShardWorking: the shard is crawling, or about to (it may queue and
	// fetch pages at any moment).
	ShardWorking ShardState = "working"
	// ShardIdle: the shard found nothing to fetch in its part of the
	// frontier and only watches the others.
	ShardIdle ShardState = "idle"
	// ShardFinished: the shard saw the whole crawl finished and stopped.
	// Entries of its part left queued then (Held) stay so; a shard started
	// later does not wait for it unless its part has grown since.
	ShardFinished ShardState = "finished"
)

// ShardRecord is what the store holds of one shard.
type ShardRecord struct {
	Shard, Shards int
	// Present is false when the shard never wrote its record (it has not
	// started yet).
	Present bool
	State   ShardState
	// Heartbeat is the writer's clock at its last heartbeat. Only for
	// people: machines compare Beats on their own clock, never clocks.
	Heartbeat time.Time
	// Beats counts heartbeats; Rounds the times the shard started
	// working; Queued the frontier entries it wrote; Finished the entries
	// it fetched (done or failed); Checks the times it looked at its part
	// of the frontier while idle and found nothing it can take. All only
	// grow.
	Beats, Rounds, Queued, Finished, Checks int64
	// Held is how many entries of its part of the frontier the shard left
	// queued when it last set its state (entries it cannot take, such as
	// those of a host that has its --max-pages-per-host).
	Held int64
	// Timeout is the shard's --shard-timeout, recorded with its state (0
	// in records written before it was): a reader calls the shard silent
	// when its heartbeat is older than that (see [ShardRecord.Silent]).
	Timeout time.Duration
}

// ShardUpdate is one change of a shard's record ([WebTable.UpdateShard]).
type ShardUpdate struct {
	// State is the new state; "" leaves it.
	State ShardState
	// Round counts one more round of work (set when going to work).
	Round bool
	// Checked counts one more look at the shard's part of the frontier
	// that found nothing it can take (set by an idle shard, after the look).
	Checked bool
	// Queued and Finished are added to the counters (>= 0).
	Queued, Finished int64
	// Held is recorded with State (see ShardRecord.Held).
	Held int64
	// Timeout is recorded with State when > 0 (see ShardRecord.Timeout).
	Timeout time.Duration
}

// ShardKey is the row key of shard's record in a crawl of shards shards.
func ShardKey(shard, shards int) string {
	return shardsPrefix(shards) + digits4(shard)
}

// ShardBudgetKey is the row key of the page budget of a crawl of shards
// shards.
func ShardBudgetKey(shards int) string { return shardsPrefix(shards) + "budget" }

func shardsPrefix(shards int) string { return ShardPrefix + digits4(shards) + "/" }

func digits4(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", max(4-len(s), 0)) + s
}

// checkShard checks that shard is one of shards (at most 9999).
func checkShard(shard, shards int) error {
	if shards < 1 || shards > 9999 || shard < 0 || shard >= shards {
		return fmt.Errorf("webtable: shard %d/%d: want 0 <= I < N <= 9999", shard, shards)
	}
	return nil
}

// UpdateShard records a heartbeat of shard (one more beat, the writer's
// clock) and the change u. The counters are written first, with one
// ReadModifyWrite, then the state: a shard that goes idle has its last
// counts in the store before anyone can see it idle.
func (w *WebTable) UpdateShard(ctx context.Context, shard, shards int, u ShardUpdate, now time.Time) error {
	if err := checkShard(shard, shards); err != nil {
		return err
	}
	if u.Queued < 0 || u.Finished < 0 {
		return fmt.Errorf("webtable: shard %d/%d: counters only grow (queued %+d, finished %+d)", shard, shards, u.Queued, u.Finished)
	}
	key := ShardKey(shard, shards)
	rmw := bigtable.NewReadModifyWrite()
	rmw.Increment(FamilyFetch, colShardBeats, 1)
	if u.Round {
		rmw.Increment(FamilyFetch, colShardRounds, 1)
	}
	if u.Checked {
		rmw.Increment(FamilyFetch, colShardChecks, 1)
	}
	if u.Queued > 0 {
		rmw.Increment(FamilyFetch, colShardQueued, u.Queued)
	}
	if u.Finished > 0 {
		rmw.Increment(FamilyFetch, colShardFinished, u.Finished)
	}
	if _, err := w.tbl.ApplyReadModifyWrite(ctx, key, rmw); err != nil {
		return fmt.Errorf("webtable: counting for shard %d/%d: %w", shard, shards, err)
	}
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colShardHeartbeat, bigtable.ServerTime, []byte(now.UTC().Format(time.RFC3339Nano)))
	if u.State != "" {
		m.Set(FamilyFetch, colShardState, bigtable.ServerTime, []byte(u.State))
		m.Set(FamilyFetch, colShardHeld, bigtable.ServerTime, []byte(strconv.FormatInt(u.Held, 10)))
		if u.Timeout > 0 {
			m.Set(FamilyFetch, colShardTimeout, bigtable.ServerTime, []byte(u.Timeout.String()))
		}
	}
	if err := w.tbl.Apply(ctx, key, m); err != nil {
		return fmt.Errorf("webtable: writing the state of shard %d/%d: %w", shard, shards, err)
	}
	return nil
}

// Shards reads the records of every shard of a crawl of shards shards,
// indexed by shard; a shard that never wrote one has Present false. A
// record that cannot be read is an error naming its key.
func (w *WebTable) Shards(ctx context.Context, shards int) ([]ShardRecord, error) {
	if err := checkShard(0, shards); err != nil {
		return nil, err
	}
	out := make([]ShardRecord, shards)
	for i := range out {
		out[i] = ShardRecord{Shard: i, Shards: shards}
	}
	prefix := shardsPrefix(shards)
	err := w.scanShardRecords(ctx, prefix, func(key, rest string) (int, int, bool, error) {
		if rest == "budget" {
			return 0, 0, true, nil
		}
		i, err := strconv.Atoi(rest)
		if err != nil || len(rest) != 4 || i >= shards {
			return 0, 0, false, fmt.Errorf("webtable: row %q is not a shard record of a crawl of %d shards", key, shards)
		}
		return i, shards, false, nil
	}, func(rec ShardRecord) { out[rec.Shard] = rec })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanShardRecords calls keep with each shard record under prefix, read
// from the latest cell of each fetch column of its row, in key order.
// name reads a row's shard and shard count from its key (whole, and after
// prefix): skip passes over the row (a budget), an error ends the scan
// and is returned. A record that cannot be parsed is an error naming its
// key.
func (w *WebTable) scanShardRecords(ctx context.Context, prefix string, name func(key, rest string) (shard, shards int, skip bool, err error), keep func(ShardRecord)) error {
	var bad error
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(prefix), func(r bigtable.Row) bool {
		i, n, skip, err := name(r.Key(), strings.TrimPrefix(r.Key(), prefix))
		if skip {
			return true
		}
		if err != nil {
			bad = err
			return false
		}
		rec, err := parseShard(r)
		if err != nil {
			bad = fmt.Errorf("webtable: shard record %q: %w", r.Key(), err)
			return false
		}
		rec.Shard, rec.Shards = i, n
		keep(rec)
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1))))
	if err != nil {
		return fmt.Errorf("webtable: reading the shard records: %w", err)
	}
	return bad
}

func parseShard(r bigtable.Row) (ShardRecord, error) {
	rec := ShardRecord{Present: true}
	for _, it := range r[FamilyFetch] {
		q := qualifier(it.Column)
		switch q {
		case colShardState:
			rec.State = ShardState(it.Value)
			if !knownShardState(rec.State) {
				return rec, fmt.Errorf("state %q is not one of %q", it.Value, shardStates)
			}
		case colShardTimeout:
			d, err := time.ParseDuration(string(it.Value))
			if err != nil || d < 0 {
				return rec, fmt.Errorf("timeout %q is not a duration", it.Value)
			}
			rec.Timeout = d
		case colShardHeld:
			n, err := strconv.ParseInt(string(it.Value), 10, 64)
			if err != nil || n < 0 {
				return rec, fmt.Errorf("held %q is not a count", it.Value)
			}
			rec.Held = n
		case colShardHeartbeat:
			t, err := time.Parse(time.RFC3339Nano, string(it.Value))
			if err != nil {
				return rec, fmt.Errorf("heartbeat %q: %w", it.Value, err)
			}
			rec.Heartbeat = t
		case colShardBeats, colShardRounds, colShardQueued, colShardFinished, colShardChecks:
			if len(it.Value) != 8 {
				return rec, fmt.Errorf("counter %s holds %d bytes, want 8", it.Column, len(it.Value))
			}
			v := int64(binary.BigEndian.Uint64(it.Value))
			switch q {
			case colShardBeats:
				rec.Beats = v
			case colShardRounds:
				rec.Rounds = v
			case colShardQueued:
				rec.Queued = v
			case colShardFinished:
				rec.Finished = v
			case colShardChecks:
				rec.Checks = v
			}
		}
	}
	if rec.State == "" {
		// Counters written, state not yet: the shard is starting.
		rec.State = ShardWorking
	}
	return rec, nil
}

// ReservePages takes up to n pages from the budget of limit successful
// fetches shared by every shard of a crawl of shards shards, and returns
// how many it got (0 when the budget is spent). The budget row counts the
// pages reserved: a reservation adds n with one ReadModifyWrite and keeps
// what still fits under limit, giving the rest back at once, so that the
// shards together never hold more than limit. A shard gives back what it
// did not use with [WebTable.ReturnPages]; the reservation of a shard
// killed before that is lost (the crawl then stops short of limit by at
// most that much).
func (w *WebTable) ReservePages(ctx context.Context, shards int, limit, n int64) (int64, error) {
	if n < 1 || limit < 1 {
		return 0, fmt.Errorf("webtable: reserving %d of a budget of %d pages: both must be at least 1", n, limit)
	}
	total, err := w.addPages(ctx, shards, n)
	if err != nil {
		return 0, err
	}
	got := min(n, max(limit-(total-n), 0))
	if got < n {
		if _, err := w.addPages(ctx, shards, got-n); err != nil {
			return 0, err
		}
	}
	return got, nil
}

// ReturnPages gives n unused pages back to the budget.
func (w *WebTable) ReturnPages(ctx context.Context, shards int, n int64) error {
	if n <= 0 {
		return nil
	}
	_, err := w.addPages(ctx, shards, -n)
	return err
}

// PagesReserved returns how many pages of the crawl's budget are reserved
// or used.
func (w *WebTable) PagesReserved(ctx context.Context, shards int) (int64, error) {
	r, err := w.tbl.ReadRow(ctx, ShardBudgetKey(shards), bigtable.RowFilter(bigtable.ChainFilters(bigtable.ColumnFilter(colBudgetPages), bigtable.LatestNFilter(1))))
	if err != nil {
		return 0, fmt.Errorf("webtable: reading the page budget: %w", err)
	}
	for _, it := range r[FamilyFetch] {
		if len(it.Value) != 8 {
			return 0, fmt.Errorf("webtable: the page budget %q holds %d bytes, want 8", ShardBudgetKey(shards), len(it.Value))
		}
		return int64(binary.BigEndian.Uint64(it.Value)), nil
	}
	return 0, nil
}

func (w *WebTable) addPages(ctx context.Context, shards int, delta int64) (int64, error) {
	if err := checkShard(0, shards); err != nil {
		return 0, err
	}
	rmw := bigtable.NewReadModifyWrite()
	rmw.Increment(FamilyFetch, colBudgetPages, delta)
	r, err := w.tbl.ApplyReadModifyWrite(ctx, ShardBudgetKey(shards), rmw)
	if err != nil {
		return 0, fmt.Errorf("webtable: updating the page budget: %w", err)
	}
	for _, it := range r[FamilyFetch] {
		if len(it.Value) == 8 {
			return int64(binary.BigEndian.Uint64(it.Value)), nil
		}
	}
	return 0, fmt.Errorf("webtable: the page budget's update returned no counter")
}

// Pending reports whether the frontier holds an entry still to fetch of
// a host of shard (of shards; shards <= 1 means the whole frontier). On
// the way it deletes the stale entries it meets (pages fetched already,
// see [WebTable.FrontierNext]); entries that cannot be read are passed to
// bad and do not count. When nothing is pending it costs one read per host
// that had only stale entries, and one read more.
func (w *WebTable) Pending(ctx context.Context, shard, shards int, bad func(BadEntry)) (bool, error) {
	lo, hi := urlkey.BucketRange(shard, shards)
	found := false
	var ferr error
	err := w.FrontierHosts(ctx, lo, hi, func(host string) bool {
		for from := ""; ; {
			page, err := w.FrontierNext(ctx, host, from, 64, nil)
			if err != nil {
				ferr = err
				return false
			}
			for _, b := range page.Bad {
				if bad != nil {
					bad(b)
				}
			}
			if len(page.Entries) > 0 {
				found = true
				return false
			}
			if !page.More {
				return true
			}
			from = page.Next
		}
	}, bad)
	if err == nil {
		err = ferr
	}
	return found, err
}

// QueuedOf counts the frontier entries of shard's hosts (all of them with
// shards <= 1), reading keys only.
func (w *WebTable) QueuedOf(ctx context.Context, shard, shards int) (int64, error) {
	lo, hi := urlkey.BucketRange(shard, shards)
	return w.FrontierSize(ctx, lo, hi)
}
