// Package crawlstore is the boundary between the crawler and the store
// that keeps what it fetched: the types both sides speak and the [Store]
// interface the crawler calls, as database/sql/driver sits between
// database/sql and the drivers. Package crawler imports it and calls a
// Store; package webtable imports it and implements one
// (webtable.CrawlStore); crawlertest.MemStore is the in-memory reference.
// This package imports neither, only the standard library and urlkey.
//
// # Main types
//
//   - [Entry]: a URL to fetch, canonical, with its row key, depth and
//     frontier position, so that neither side parses or keys it again.
//   - [Page]: the result of one fetch, with its row key and the SHA-256 of
//     its body, handed to [Store.SavePage].
//   - [Fetch]: what the store remembers of the last fetch of a URL.
//   - [State]: a URL's place in the frontier (queued, done, failed).
//   - [Requeue]: which URLs already fetched are queued again.
//   - [FrontierBatch], [SaveResult]: what [Store.Next] and
//     [Store.SavePage] answer.
//   - [FrontierHinter], [HostFeed], [HoldRecorder], [PrivateSeeder]:
//     optional powers of a store, asked for with a type assertion; their
//     absence changes how much a run reads, never what it fetches.
//   - [ShardOf]: the one rule that places a host in a shard.
//
// # Caveats
//
// The contract of a Store (what a crash may leave, the order of the writes
// of SavePage) is written on [Store]; crawlertest.StoreContract tests it.
// The crawler's own bookkeeping of an entry in a run (its retries, a switch
// to the other scheme) is not part of Entry and never reaches the store.
package crawlstore
