// Package shardrun runs one shard of a crawl split between processes that
// share one store (crawl --shard I/N): the library under cmd/crawl's
// flags. Each shard crawls its own part of the frontier (the hosts that
// crawlstore.ShardOf gives it) in rounds with a [crawler.Crawler] over
// the WebTable, and between rounds watches the store until other shards
// queue work for it or every shard is done (webtable.ShardWatch): the
// crawl is finished when no shard has work left, which every shard
// decides alike from the records the shards keep in the store.
//
// # Main types
//
//   - [Run] runs a shard until the whole crawl is finished; [Open] opens
//     its store, trying one that does not answer again for a while.
//   - [Continuous] runs a shard of a continuous crawl (crawl --continuous
//     --shard I/N), which never finishes, keeping its record and
//     heartbeats as Run does, for readers (query stats).
//   - [Options] configure it, [Reporter] is told how it goes, and an
//     [Error] says why it ended early, by [Kind]. [Label] prefixes a
//     shard's lines and [SyncWriter] keeps them whole.
//
// # Caveats
//
// A shard writes a heartbeat to the store every poll (a twentieth of
// Options.Timeout, between 20 ms and 1 s); a shard silent for longer than
// Options.Timeout before the crawl is finished (unless it stopped after
// seeing it finished) stops the others (ShardGone) rather than let them
// finish a crawl that may not be: its part may hold pages still queued. The --max-pages budget
// is shared through the store in small reservations, so a shard killed
// with one in hand costs the crawl at most those pages.
package shardrun
