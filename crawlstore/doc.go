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
//   - [Page]: the result of one fetch, with its row key, the SHA-256 of
//     its body and its [Link]s, handed to [Store.SavePage]; [ErrorKind]
//     says why a fetch failed.
//   - [Fetch]: what the store remembers of the last fetch of a URL.
//   - [State]: a URL's place in the frontier (queued, done, failed).
//   - [Requeue]: which URLs already fetched are queued again.
//   - [FrontierBatch], [SaveResult]: what [Store.Next] and
//     [Store.SavePage] answer.
//   - [ShardOf]: the one rule that places a host in a shard; [HostOf]:
//     the host (with its port) a canonical URL is grouped by.
//
// # Optional powers
//
// A store may have more powers, each a small interface the crawler asks
// for with a type assertion:
//
//   - [FrontierHinter], [HostFeed]: fewer reads (of a resumed host's
//     frontier, of the work other shards queue); without them a run reads
//     more, and fetches the same.
//   - [HoldRecorder]: the origins a run held back ([HeldBack]), for
//     readers and for the next run, which honours a server's Retry-After
//     from a run before.
//   - [PrivateSeeder]: the private addresses seeds named, so that a
//     resumed crawl, which has no seeds, may fetch from them.
//   - [DueKeeper]: when each page is due again ([Change]), which a
//     continuous crawl needs; [QueueWatcher] wakes it when a link is
//     queued; [SitemapKeeper] keeps its sitemaps' schedules
//     ([SitemapSchedule]).
//
// # Caveats
//
// The contract of a Store (what a crash may leave, the order of the writes
// of SavePage) is written on [Store]; crawlertest.StoreContract tests it.
// The crawler's own bookkeeping of an entry in a run (its retries, a switch
// to the other scheme) is not part of Entry and never reaches the store.
package crawlstore
