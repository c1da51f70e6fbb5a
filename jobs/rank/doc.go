// Package rank is the rank job: the PageRank of every fetched page (a row
// with contents) over the link graph of the anchor family, written as
// rank:page ([FormatRank]) with rank:hosts, the number of distinct hosts
// whose anchors name the page (self-links left out).
//
// [Job.Prepare] scans the table once, the run's splits in parallel, into
// a [Graph] in compressed sparse row form, and runs [Graph.PageRank]
// ([Damping], [Tolerance], [MaxIter]); [Job.RunSplit] writes the pages of
// its split whose rank or hosts differ from the stored ones, at the
// newest timestamp of the contents and anchor cells read.
//
// # Caveats
//
//   - Every process builds the whole graph, whatever its shard: a page's
//     rank depends on every page. The graph costs some 40 bytes a page
//     and 4 a link, besides the row keys.
//   - Anchors whose referrer is not a fetched page of the table add no
//     edge; the page they name is counted as bad input
//     (jobs.Env.Bad), and its referring host still counts in rank:hosts.
//   - A stored rank in another form than FormatRank's is rewritten.
package rank
