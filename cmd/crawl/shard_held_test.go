package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// TestShardTakesEntryQueuedAfterEmptyRound: an entry that another shard
// queues for this one just after a round of it that took nothing (and so
// never saw the entry) is fetched, not held as left on purpose. Before the
// fix the shard counted it among the entries it left queued, and the
// shards agreed the crawl was finished with it still queued: the cause of
// TestShardsMaxPagesPerHost's "1 hosts fetched, want all 100" under load.
func TestShardTakesEntryQueuedAfterEmptyRound(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const shards = 2
	web := newManyHostWeb(t, 1, 1) // the seed only: h0000/p/0
	owner := crawlstore.ShardOf(web.host(0), shards)
	other := 1 - owner
	// A host of the other shard that no page links to: only the entry
	// queued below leads to it.
	k := 1
	for crawlstore.ShardOf(web.host(k), shards) != other {
		k++
	}
	web.unlinked = k
	late := "http://" + web.host(k) + "/p/0"

	var once sync.Once
	d := deps{open: openForCrawl, storeGrace: storeGrace,
		shardRoundDone: func(ctx context.Context, shard int, w *webtable.WebTable) {
			if shard != other {
				return
			}
			once.Do(func() {
				if _, err := w.CrawlStore().Enqueue(ctx, []crawlstore.Entry{{URL: late, Depth: 1}}, crawlstore.Requeue{}); err != nil {
					t.Errorf("queuing %s: %v", late, err)
				}
			})
		}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errb bytes.Buffer
			code := runWith(ctx, shardArgs(web, "bigtable://p/i/t", i, shards, "--shard-timeout", "4s"), &out, &errb, d)
			if code != exitOK {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, errb.String())
			}
		}()
	}
	wg.Wait()
	web.mu.Lock()
	defer web.mu.Unlock()
	if got, want := fmt.Sprint(web.fetches[late]), fmt.Sprintf("[shard-%d]", other); got != want {
		t.Errorf("%s, queued for shard %d/%d after a round of it that took nothing, fetched by %s, want %s", late, other, shards, got, want)
	}
}
