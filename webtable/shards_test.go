package webtable

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

func rec(i int, state ShardState, beats, rounds, queued, finished, checks int64) ShardRecord {
	return ShardRecord{Shard: i, Shards: 2, Present: true, State: state, Beats: beats, Rounds: rounds, Queued: queued, Finished: finished, Checks: checks}
}

// TestShardWatch walks the termination rule through the races it must
// survive: one look is never enough, a shard that worked between two looks
// (states equal, counters moved) postpones the end, every shard must look
// at its part twice after the baseline, and silence is judged by beats on
// the watcher's clock.
func TestShardWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type look struct {
		recs     []ShardRecord
		at       time.Duration
		finished bool
		silent   string
	}
	idle := func(checks int64) ShardRecord { return rec(0, ShardIdle, checks, 1, 5, 5, checks) }
	other := func(state ShardState, beats, rounds, queued, finished, checks int64) ShardRecord {
		return rec(1, state, beats, rounds, queued, finished, checks)
	}
	for _, tc := range []struct {
		name  string
		looks []look
	}{
		{"idle and two checks each finish", []look{
			{recs: []ShardRecord{idle(1), other(ShardIdle, 1, 1, 3, 3, 1)}},
			{recs: []ShardRecord{idle(2), other(ShardIdle, 2, 1, 3, 3, 2)}, at: time.Second},
			{recs: []ShardRecord{idle(3), other(ShardIdle, 3, 1, 3, 3, 3)}, at: 2 * time.Second, finished: true},
		}},
		{"one check after the baseline is not enough", []look{
			{recs: []ShardRecord{idle(1), other(ShardIdle, 1, 1, 3, 3, 1)}},
			{recs: []ShardRecord{idle(5), other(ShardIdle, 2, 1, 3, 3, 2)}, at: time.Second},
		}},
		{"idle, work, idle again between looks", []look{
			{recs: []ShardRecord{idle(1), other(ShardIdle, 1, 1, 3, 3, 1)}},
			{recs: []ShardRecord{idle(3), other(ShardIdle, 4, 2, 4, 4, 3)}, at: time.Second},
			{recs: []ShardRecord{idle(4), other(ShardIdle, 5, 2, 4, 4, 4)}, at: 2 * time.Second},
			{recs: []ShardRecord{idle(5), other(ShardIdle, 6, 2, 4, 4, 5)}, at: 3 * time.Second, finished: true},
		}},
		{"a round that changed nothing else still counts", []look{
			{recs: []ShardRecord{idle(1), other(ShardIdle, 1, 1, 3, 3, 1)}},
			{recs: []ShardRecord{idle(3), other(ShardIdle, 3, 2, 3, 3, 3)}, at: time.Second},
		}},
		{"a working shard keeps it going", []look{
			{recs: []ShardRecord{idle(1), other(ShardWorking, 1, 1, 3, 3, 0)}},
			{recs: []ShardRecord{idle(3), other(ShardWorking, 2, 1, 3, 3, 0)}, at: time.Second},
		}},
		{"a shard that stopped after the end needs no checks", []look{
			{recs: []ShardRecord{idle(1), other(ShardFinished, 9, 1, 3, 3, 7)}},
			{recs: []ShardRecord{idle(3), other(ShardFinished, 9, 1, 3, 3, 7)}, at: time.Second, finished: true},
		}},
		{"a shard that never started is silent after the timeout", []look{
			{recs: []ShardRecord{idle(1), {Shard: 1, Shards: 2}}},
			{recs: []ShardRecord{idle(2), {Shard: 1, Shards: 2}}, at: time.Minute},
			{recs: []ShardRecord{idle(3), {Shard: 1, Shards: 2}}, at: time.Minute + time.Millisecond, silent: "1"},
		}},
		{"beats that move keep a shard alive, whatever its clock says", []look{
			{recs: []ShardRecord{idle(1), other(ShardWorking, 7, 1, 3, 3, 0)}},
			{recs: []ShardRecord{idle(2), other(ShardWorking, 8, 1, 3, 3, 0)}, at: 50 * time.Second},
			{recs: []ShardRecord{idle(3), other(ShardWorking, 9, 1, 3, 3, 0)}, at: 100 * time.Second},
			{recs: []ShardRecord{idle(4), other(ShardWorking, 9, 1, 3, 3, 0)}, at: 161 * time.Second, silent: "1"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewShardWatch(2, time.Minute)
			for n, l := range tc.looks {
				v := w.Look(l.recs, t0.Add(l.at))
				if v.Finished != l.finished {
					t.Errorf("look %d: Finished = %v, want %v (waiting: %s)", n, v.Finished, l.finished, v.Waiting)
				}
				var silent []string
				for _, s := range v.Silent {
					silent = append(silent, string(rune('0'+s)))
				}
				if got := strings.Join(silent, ","); got != l.silent {
					t.Errorf("look %d: Silent = %q, want %q", n, got, l.silent)
				}
				if !v.Finished && v.Waiting == "" {
					t.Errorf("look %d: not finished and no reason given", n)
				}
			}
		})
	}
}

// TestShardRecords writes records through UpdateShard and reads them back,
// and survives a reopen (a restarted shard carries on from its counts).
func TestShardRecords(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	if err := w.UpdateShard(ctx, 1, 3, ShardUpdate{State: ShardWorking, Round: true, Queued: 4}, now); err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateShard(ctx, 1, 3, ShardUpdate{Finished: 2}, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w = openDir(t, dir, true, Options{})
	defer w.Close()
	if err := w.UpdateShard(ctx, 1, 3, ShardUpdate{State: ShardIdle, Queued: 1, Finished: 3, Checked: true, Held: 2}, now.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	recs, err := w.Shards(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := ShardRecord{Shard: 1, Shards: 3, Present: true, State: ShardIdle, Heartbeat: now.Add(2 * time.Second), Beats: 3, Rounds: 1, Queued: 5, Finished: 5, Checks: 1, Held: 2}
	if got := recs[1]; got != want {
		t.Errorf("record of shard 1/3 = %+v, want %+v", got, want)
	}
	if recs[0].Present || recs[2].Present {
		t.Errorf("shards 0 and 2 never wrote, got %+v and %+v", recs[0], recs[2])
	}
	if err := w.UpdateShard(ctx, 3, 3, ShardUpdate{}, now); err == nil {
		t.Error("UpdateShard of shard 3/3 succeeded, want an error")
	}
	if err := w.UpdateShard(ctx, 0, 3, ShardUpdate{Queued: -1}, now); err == nil {
		t.Error("UpdateShard with a negative count succeeded, want an error")
	}
	if n, err := w.Stats(ctx, nil); err != nil || n.Rows != 0 {
		t.Errorf("Stats counts %d page rows (%v), want 0: shard records are not pages", n.Rows, err)
	}
}

// TestReservePages: shards reserving at once never hold more than the
// budget, and pages given back can be reserved again.
func TestReservePages(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	const limit = 100
	var mu sync.Mutex
	var got int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, err := w.ReservePages(ctx, 4, limit, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
				mu.Lock()
				got += n
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if got != limit {
		t.Errorf("reserved %d pages in all, want exactly the budget %d", got, limit)
	}
	if n, err := w.PagesReserved(ctx, 4); n != limit || err != nil {
		t.Errorf("PagesReserved = %d, %v; want %d", n, err, limit)
	}
	if err := w.ReturnPages(ctx, 4, 10); err != nil {
		t.Fatal(err)
	}
	if n, err := w.ReservePages(ctx, 4, limit, 25); n != 10 || err != nil {
		t.Errorf("after giving back 10, ReservePages(25) = %d, %v; want 10", n, err)
	}
}
