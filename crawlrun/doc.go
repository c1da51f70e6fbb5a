// Package crawlrun runs one crawl of a single process into a WebTable
// (crawl without --shard): the library under cmd/crawl's flags, as
// package shardrun is for a crawl split between processes.
//
// # Main types
//
//   - [Run] creates the crawler over the WebTable's crawlstore.Store and
//     runs it once or, for a continuous crawl, until ctx ends; then it
//     writes the WebTable's last deletes, cut off within the same grace
//     after an interrupt as the crawler's own store calls
//     (crawler.Config.StoreGrace). [RunOn] does so over a wrapper of the
//     WebTable's store.
//   - A run that ends early says why with an [Error] of a [Kind], for the
//     program's exit status; a configuration the crawler refuses is a
//     [SetupError].
//   - [Resumes] says whether a run without seeds only resumes what is
//     queued, and whether anything is; [LogTo] writes the crawler's log
//     lines whole.
//
// # Caveats
//
// The deletes that could not be written are only reported through
// crawler.Config.Log: nothing is lost, as the frontier drops the entries
// of pages already done when it next reaches them.
package crawlrun
