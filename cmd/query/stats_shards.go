package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/webtable"
)

// defaultShardTimeout is the silence after which query stats calls a
// shard whose record names no --shard-timeout (written before records
// did) stale: crawl's default --shard-timeout.
const defaultShardTimeout = 3 * time.Minute

// jsonShard is one shard record in query stats --json: a shard of a
// crawl split between processes (crawl --shard I/N), batch or continuous.
type jsonShard struct {
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
	State  string `json:"state"`
	// Stale is true when the shard says it is at work but its heartbeat
	// is older than its --shard-timeout: it was killed, or lost its store.
	Stale     bool   `json:"stale"`
	Heartbeat string `json:"heartbeat"`
	// Age is the heartbeat's age in seconds, by this machine's clock.
	Age     float64 `json:"heartbeat_age_seconds"`
	Fetched int64   `json:"fetched"`
	Queued  int64   `json:"queued"`
	Beats   int64   `json:"beats"`
	Timeout string  `json:"timeout,omitempty"`
	// Rounds counts a batch shard's rounds, a continuous shard's starts.
	Rounds int64 `json:"rounds"`
}

// shardStats reads every shard record of the store (none for a crawl of
// one process).
func shardStats(ctx context.Context, w *webtable.WebTable, now time.Time) ([]jsonShard, error) {
	recs, err := w.AllShards(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]jsonShard, 0, len(recs))
	for _, r := range recs {
		s := jsonShard{Shard: r.Shard, Shards: r.Shards, State: string(r.State), Stale: r.Silent(now, defaultShardTimeout),
			Heartbeat: r.Heartbeat.UTC().Format(timeJSON), Age: now.Sub(r.Heartbeat).Seconds(),
			Fetched: r.Finished, Queued: r.Queued, Beats: r.Beats, Rounds: r.Rounds}
		if r.Timeout > 0 {
			s.Timeout = r.Timeout.String()
		}
		out = append(out, s)
	}
	return out, nil
}

// printShards writes one line per shard record.
func printShards(w io.Writer, shards []jsonShard) {
	for _, s := range shards {
		state := s.State
		if s.Stale {
			timeout := s.Timeout
			if timeout == "" {
				timeout = defaultShardTimeout.String()
			}
			state = fmt.Sprintf("STALE (says %s, but silent for more than its --shard-timeout %s: killed, or cut off from the store?)", s.State, timeout)
		}
		fmt.Fprintf(w, "  %-10s %d/%d %s: fetched %d, queued %d; last heartbeat %s (%s ago)\n", "shard", s.Shard, s.Shards, state,
			s.Fetched, s.Queued, s.Heartbeat, time.Duration(s.Age*float64(time.Second)).Round(time.Second))
	}
}
