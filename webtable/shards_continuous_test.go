package webtable

import (
	"context"
	"testing"
	"time"
)

// TestAllShards: the records of crawls of any shard count come back in
// key order with their timeouts, the budget row left out; a running shard
// is silent once its heartbeat is older than its timeout, a stopped one
// never is.
func TestAllShards(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	defer w.Close()
	now := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.UpdateShard(ctx, 1, 2, ShardUpdate{State: ShardRunning, Round: true, Timeout: 2 * time.Second}, now))
	must(w.UpdateShard(ctx, 1, 2, ShardUpdate{Finished: 7}, now.Add(time.Second)))
	must(w.UpdateShard(ctx, 0, 2, ShardUpdate{State: ShardStopped, Finished: 3, Timeout: 2 * time.Second}, now))
	must(w.UpdateShard(ctx, 3, 4, ShardUpdate{State: ShardIdle}, now))
	if _, err := w.ReservePages(ctx, 2, 10, 1); err != nil {
		t.Fatal(err)
	}
	recs, err := w.AllShards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []ShardRecord{
		{Shard: 0, Shards: 2, Present: true, State: ShardStopped, Heartbeat: now, Beats: 1, Finished: 3, Timeout: 2 * time.Second},
		{Shard: 1, Shards: 2, Present: true, State: ShardRunning, Heartbeat: now.Add(time.Second), Beats: 2, Rounds: 1, Finished: 7, Timeout: 2 * time.Second},
		{Shard: 3, Shards: 4, Present: true, State: ShardIdle, Heartbeat: now, Beats: 1},
	}
	if len(recs) != len(want) {
		t.Fatalf("AllShards = %+v, want %+v", recs, want)
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Errorf("AllShards[%d] = %+v, want %+v", i, recs[i], want[i])
		}
	}
	for _, tc := range []struct {
		name string
		rec  ShardRecord
		at   time.Time
		want bool
	}{
		{"running, heartbeat fresh", recs[1], now.Add(3 * time.Second), false},
		{"running, heartbeat older than its timeout", recs[1], now.Add(3*time.Second + time.Millisecond), true},
		{"stopped, heartbeat old", recs[0], now.Add(time.Hour), false},
		{"no timeout recorded: the default", recs[2], now.Add(time.Minute), true},
	} {
		if got := tc.rec.Silent(tc.at, 30*time.Second); got != tc.want {
			t.Errorf("%s: Silent = %v, want %v", tc.name, got, tc.want)
		}
	}
}
