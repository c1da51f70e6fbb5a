package webtable

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// TestInboxNotesOtherShardsHosts: a WebTable told its shard notes, with
// the entries it queues, each host of another shard in that shard's
// inbox, once per host; FedHosts hands each out once, and a note written
// after a read is handed out by the next read.
func TestInboxNotesOtherShardsHosts(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	const shards = 2
	var mine, theirs []string
	for i := 0; len(mine) < 2 || len(theirs) < 2; i++ {
		h := fmt.Sprintf("h%d.test", i)
		if urlkey.ShardOfBucket(urlkey.HostBucket(h), shards) == 0 {
			mine = append(mine, h)
		} else {
			theirs = append(theirs, h)
		}
	}
	entries := func(hosts ...string) []crawlstore.Entry {
		var es []crawlstore.Entry
		for _, h := range hosts {
			es = append(es, crawlstore.Entry{URL: "http://" + h + "/a"}, crawlstore.Entry{URL: "http://" + h + "/b"})
		}
		return es
	}
	fed := func(shard int) []string {
		t.Helper()
		var got []string
		if err := w.FedHosts(ctx, shard, shards, func(h string) { got = append(got, h) }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}

	// Not told its shard: no inbox.
	if _, err := w.Enqueue(ctx, entries(theirs[0]), crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if got := fed(1); len(got) != 0 {
		t.Errorf("FedHosts(1/2) of a WebTable not told its shard = %v, want none", got)
	}

	if err := w.SetShard(0, shards); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Enqueue(ctx, entries(mine[0], theirs[1], mine[1]), crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if got, want := fed(1), []string{theirs[1]}; !slices.Equal(got, want) {
		t.Errorf("FedHosts(1/2) = %v, want %v (the other shard's host, once)", got, want)
	}
	if got := fed(0); len(got) != 0 {
		t.Errorf("FedHosts(0/2) = %v, want none: shard 0 queued its own hosts", got)
	}
	if got := fed(1); len(got) != 0 {
		t.Errorf("FedHosts(1/2) read again = %v, want none", got)
	}
	// Known URLs queue nothing and note nothing; new ones do.
	if _, err := w.Enqueue(ctx, entries(theirs[1]), crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	if got := fed(1); len(got) != 0 {
		t.Errorf("FedHosts(1/2) after queueing known URLs = %v, want none", got)
	}
	if _, err := w.Enqueue(ctx, []crawlstore.Entry{{URL: "http://" + theirs[1] + "/c"}, {URL: "http://" + theirs[0] + "/c"}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	want := []string{theirs[0], theirs[1]}
	slices.Sort(want)
	if got := fed(1); !slices.Equal(got, want) {
		t.Errorf("FedHosts(1/2) after new entries = %v, want %v", got, want)
	}
	if err := w.SetShard(2, shards); err == nil {
		t.Errorf("SetShard(2, 2) = nil, want an error")
	}
}
