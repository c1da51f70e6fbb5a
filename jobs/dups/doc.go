// Package dups is the dups job: a 64-bit [Simhash] of each page's text
// shingles (dup:simhash, with dup:src the text:src it was computed from),
// and clusters of duplicates, exact by contents:sha256 or near by simhash
// (within [MaxDistance] bits, see [Cluster]), whose representative every
// member names in dup:of. The representative is the member of highest
// rank:page, then shortest row key; its row lists the cluster's first
// [MaxMembers] members in dup:members ([FormatMembers]).
//
// Prepare reads every page's text:src, contents:sha256, rank:page and
// stored dup cells, hashes again only the texts whose text:src moved
// (every text with jobs.Config.Full), and clusters the pages with text;
// RunSplit writes the rows of its split whose dup cells differ from the
// result (every row with Full).
//
// # Caveats
//
//   - Run the text job first (text:body is the input) and rank before it
//     (for the representative).
//   - Every process clusters the whole table, whatever its shard: a
//     page's duplicates may be anywhere.
//   - A page whose text has no word (simhash 0) is a duplicate only of
//     the same bytes.
package dups
