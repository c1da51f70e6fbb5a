package shardrun

import (
	"fmt"
	"io"
	"maps"
	"sync"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// crawlTotals is what a shard prints when the whole crawl is finished.
func crawlTotals(recs []webtable.ShardRecord, rounds int) string {
	var queued, finished int64
	for _, r := range recs {
		queued += r.Queued
		finished += r.Finished
	}
	return fmt.Sprintf("the whole crawl is finished: %d shards fetched %d pages (done or failed) and queued %d; this shard worked %d rounds\n",
		len(recs), finished, queued, rounds)
}

// addStats adds b's counts to a's.
func addStats(a, b crawler.Stats) crawler.Stats {
	a.Fetched += b.Fetched
	a.NewVersions += b.NewVersions
	a.Unchanged += b.Unchanged
	a.Redirects += b.Redirects
	a.Errors += b.Errors
	a.Traps += b.Traps
	a.Retries += b.Retries
	a.Bytes += b.Bytes
	a.Elapsed += b.Elapsed
	a.Idle += b.Idle
	a.IdleReady += b.IdleReady
	a.Queued, a.InFlight, a.Done = b.Queued, b.InFlight, b.Done
	if len(b.ErrorsByKind) > 0 {
		m := maps.Clone(a.ErrorsByKind)
		if m == nil {
			m = map[crawlstore.ErrorKind]int64{}
		}
		for k, v := range b.ErrorsByKind {
			m[k] += v
		}
		a.ErrorsByKind = m
	}
	return a
}

// SyncWriter returns w with its writes serialised, one whole line (one
// Write) at a time, for Options.Stderr: the heartbeat, the crawler's
// workers and the loop of a shard all write to it, and so may the
// program's progress.
func SyncWriter(w io.Writer) io.Writer { return &lockedWriter{w: w} }

// lockedWriter serialises writes to w, one whole line (one Write) at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
