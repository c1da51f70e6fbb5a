// Package search is the search job and the reader of what it builds: a
// full-text index (bleve, scored by BM25) of every stored HTML version of
// every page, kept beside the WebTable, that cmd/index builds and
// cmd/query searches.
//
// One document stands for one version: its text family (title, body,
// language) at that version's timestamp, the anchor texts of the page's
// referring hosts, the words of its URL, its site and parent domains,
// and the time the version is valid ([FieldFrom], [FieldTo]); nothing is
// stored in the index itself, so the hits shown are read from the table.
// [NewMapping] is the layout, named by [Form].
//
// Writing: [OpenShard] opens (or creates, or rebuilds when it is of
// another Form) one shard's index under [ShardDir]; a [Job] with that
// [Shard] is a jobs.Job whose RunSplit indexes the rows of its split
// whose documents changed, and updates the rank and duplicate
// representative kept per row beside the index. [ForgetRun] makes a fresh
// index redo the run's splits.
//
// Reading: [OpenReader] opens every shard of a directory together;
// [Reader.Search] runs a [Request]: a query [Parse] reads (words,
// "phrases", -exclusions, site:), [Filters] (sites, language, a time), a
// limit. Hits are scored by BM25 times a PageRank prior
// ([PriorWeight]), at most [MaxPerHost] per host unless the query names
// sites, a duplicate cluster folded into one hit, each with a [Snippet]
// of its text.
//
// # Caveats
//
//   - A hit is shown only if its version is the one the table holds for
//     that time: a version the index has but the table no longer has, or
//     has a newer one for, is skipped.
//   - Stop words are not in the index: a phrase of stop words alone is
//     looked for in the texts of at most [MaxScan] candidates.
//   - One process writes a shard at a time; a reader and the writer wait
//     for each other up to [LockWait], then fail with [ErrBusy].
package search
