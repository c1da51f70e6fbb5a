package webtable

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The states of a shard of a continuous crawl (crawl --continuous
// --shard I/N), which never finishes: it runs until it is stopped.
const (
	// ShardRunning: the shard of a continuous crawl is fetching, or
	// waiting for its next page due; its heartbeat goes on while it waits.
	ShardRunning ShardState = "running"
	// ShardStopped: the shard of a continuous crawl was stopped (Ctrl-C);
	// the same command resumes it. A shard killed outright cannot say so:
	// it stays running with a heartbeat that gets old (Silent).
	ShardStopped ShardState = "stopped"
)

// shardStates are the states a record may hold.
var shardStates = []ShardState{ShardWorking, ShardIdle, ShardFinished, ShardRunning, ShardStopped}

func knownShardState(s ShardState) bool { return slices.Contains(shardStates, s) }

// Silent reports whether the shard of r says it is at work (working, idle
// or running: not finished, not stopped) but its last heartbeat is older
// than its timeout at now: it was killed, or cannot reach the store. A
// record without a timeout uses def. NB: this compares the writer's clock
// with the reader's, which is good enough for people (query stats); the
// shards themselves never do (see [ShardWatch]).
func (r ShardRecord) Silent(now time.Time, def time.Duration) bool {
	if !r.Present || r.State == ShardFinished || r.State == ShardStopped {
		return false
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = def
	}
	return now.Sub(r.Heartbeat) > timeout
}

// AllShards reads every shard record the store holds, of crawls of any
// number of shards, in key order (by shard count, then shard); shards that
// never wrote one are left out. A record that cannot be read is an error
// naming its key.
func (w *WebTable) AllShards(ctx context.Context) ([]ShardRecord, error) {
	var out []ShardRecord
	err := w.scanShardRecords(ctx, ShardPrefix, func(key, rest string) (int, int, bool, error) {
		nStr, iStr, ok := strings.Cut(rest, "/")
		if iStr == "budget" {
			return 0, 0, true, nil
		}
		n, nerr := strconv.Atoi(nStr)
		i, ierr := strconv.Atoi(iStr)
		if !ok || nerr != nil || ierr != nil || len(nStr) != 4 || len(iStr) != 4 || checkShard(i, n) != nil {
			return 0, 0, false, fmt.Errorf("webtable: row %q is not a shard record", key)
		}
		return i, n, false, nil
	}, func(rec ShardRecord) { out = append(out, rec) })
	if err != nil {
		return nil, err
	}
	return out, nil
}
