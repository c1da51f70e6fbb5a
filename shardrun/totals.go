package shardrun

import (
	"fmt"
	"io"
	"sync"

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
