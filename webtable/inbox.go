package webtable

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/urlkey"
)

// Shard inboxes: which hosts of a shard other shards queued entries for.
//
// A shard's crawl learns of the entries it queues itself as it queues
// them, not of those the other shards queue for its hosts (the links their
// pages hold). Listing its hosts again ([WebTable.FrontierHosts]) costs a
// read per host; so a WebTable told its shard ([WebTable.SetShard]) notes,
// with every entry it queues for a host of another shard, that host in
// that shard's inbox:
//
//	~inbox/<N>/<J>/<bucket>/<host>/   fetch:inbox at the writer's clock
//
// N the shards, J the shard of host (4 decimal digits each), bucket and
// host as in the frontier's keys, so that an inbox is one short range and
// a host is one row however many entries it got. The row goes in the bulk
// write of the entries, after them: on a store whose bulk writes keep
// their order a reader that sees the row sees the entries; elsewhere the
// entries go in a call before it (applyLinkBatch). [WebTable.FedHosts]
// reads an inbox and deletes the cells it read, not the ones written
// since.
//
// NB: an inbox is a hint to be quick, never the only way to find work: a
// shard's next round lists its hosts from the frontier, so a note lost
// (a writer's clock behind the reader's, a crash between the entries and
// the note) costs a round, never an entry.
const (
	// FrontierInboxPrefix starts every inbox row.
	FrontierInboxPrefix = ReservedPrefix + "inbox/"
	colInbox            = "inbox"
)

// shardOf is the shard this WebTable crawls, for the inboxes (see
// SetShard); nil when it is not told one.
type shardOf struct{ shard, shards int }

// SetShard tells the WebTable that it crawls shard of shards (a crawl
// split between shards processes, shards > 1), so that the entries it
// queues for hosts of the other shards are noted in their inboxes (see
// above). Call it before the crawl queues anything. The default is no
// shard: no inbox is written.
func (w *WebTable) SetShard(shard, shards int) error {
	if err := checkShard(shard, shards); err != nil {
		return err
	}
	if shards <= 1 {
		w.shard.Store(nil)
		return nil
	}
	w.shard.Store(&shardOf{shard: shard, shards: shards})
	return nil
}

// shardAtomic holds a *shardOf.
type shardAtomic = atomic.Pointer[shardOf]

func inboxPrefix(shard, shards int) string {
	return FrontierInboxPrefix + digits4(shards) + "/" + digits4(shard) + "/"
}

// inboxKey is the inbox row of host, in the inbox of its shard of shards.
func inboxKey(host string, shards int) string {
	b := urlkey.HostBucket(host)
	return inboxPrefix(urlkey.ShardOfBucket(b, shards), shards) + bucketText(b) + "/" + host + "/"
}

// addInbox adds to b the inbox rows of the hosts of other shards among
// hosts (each once), when the WebTable crawls a shard.
func (w *WebTable) addInbox(b *batch, hosts []string) {
	me := w.shard.Load()
	if me == nil || len(hosts) == 0 {
		return
	}
	ts := timestamp(time.Now())
	seen := map[string]bool{}
	for _, h := range hosts {
		if seen[h] || urlkey.ShardOfBucket(urlkey.HostBucket(h), me.shards) == me.shard {
			continue
		}
		seen[h] = true
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colInbox, ts, nil)
		b.add(inboxKey(h, me.shards), m)
	}
}

// isInbox reports an inbox row's key.
func isInbox(key string) bool { return strings.HasPrefix(key, FrontierInboxPrefix) }

// FedHosts calls fn with every host in the inbox of shard of shards (the
// hosts other shards queued entries for since the last call), in key
// order, and then deletes from the inbox the notes it read (not those
// written since). An inbox row that does not follow the layout is
// deleted as well.
func (w *WebTable) FedHosts(ctx context.Context, shard, shards int, fn func(host string)) error {
	if err := checkShard(shard, shards); err != nil {
		return err
	}
	prefix := inboxPrefix(shard, shards)
	var del batch
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(prefix), func(r bigtable.Row) bool {
		var newest bigtable.Timestamp
		for _, it := range r[FamilyFetch] {
			newest = max(newest, it.Timestamp)
		}
		m := bigtable.NewMutation()
		// NB: to the end of the newest note's millisecond (Cloud Bigtable
		// keeps no finer time): a note written in that millisecond after
		// this read is lost, and its entries wait for the next round.
		m.DeleteTimestampRange(FamilyFetch, colInbox, 0, newest.TruncateToMilliseconds()+1000)
		del.add(r.Key(), m)
		rest := strings.TrimPrefix(r.Key(), prefix)
		if len(rest) > 8 && rest[6] == '/' && rest[len(rest)-1] == '/' {
			fn(rest[7 : len(rest)-1])
		}
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.ColumnFilter(colInbox), bigtable.StripValueFilter())))
	if err != nil {
		return fmt.Errorf("webtable: reading the inbox of shard %d/%d: %w", shard, shards, err)
	}
	if err := w.applyBatch(ctx, &del); err != nil {
		return fmt.Errorf("webtable: emptying the inbox of shard %d/%d: %w", shard, shards, err)
	}
	return nil
}
