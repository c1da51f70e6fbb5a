// Package jobs runs indexing jobs over a WebTable: jobs that read what the
// crawl stored and write what they derive back into derived column
// families (webtable.FamilyText, FamilyRank, FamilyDup), as the jobs over
// Google's WebTable did. cmd/index drives it; the jobs are its
// subpackages text, rank and dups, and search, which writes no cells but
// a full-text index beside the table.
//
// A [Job] has a name, a family, a Prepare that runs once per process with
// the whole table to read (rank builds its graph there, dups its
// clusters), and a RunSplit that does the job's work on one [Split]: a
// contiguous range of page rows. [Run] cuts the page rows at the
// tablets' boundaries (and big tablets every [Config.SplitRows] rows),
// records the cut as the run's plan under webtable.JobPrefix, and records
// each split when it is finished, so that:
//
//   - a process killed at any moment resumes the run, skipping the splits
//     recorded done (their writes are in the table: a split is recorded
//     only after its writes returned);
//   - shards (Config.Shard of Config.Shards, cmd/index --shard I/N) share
//     one plan, recorded by whichever swaps it in first, and take the
//     splits whose number is I modulo N;
//   - a run whose splits are all done is replaced by a new one the next
//     time, which redoes only the rows whose inputs changed
//     (Config.Full redoes every row).
//
// Jobs write only what their inputs determine, at timestamps their inputs
// determine, and only where the result differs from what is stored, so a
// split done twice (after a crash) leaves the table as once, and a run
// over an unchanged table writes nothing.
//
// # Caveats
//
//   - rank and dups read the whole table in every process, whatever its
//     shard: a page's rank depends on every page, and its duplicates may be
//     anywhere. Sharding divides their writes, not their reads; their
//     memory grows with the pages (rank: some 40 bytes a page plus 4 a
//     link and its row keys; dups: a row key and 80 bytes a page).
//   - Shards must see the same table: a shard that starts after the crawl
//     wrote more computes ranks from another graph than the others did.
//   - A run killed and resumed with another --full is abandoned and begun
//     anew (its finished splits are redone); with shards, never.
//   - The plan is JSON: a split cannot start at a row key that is not
//     valid UTF-8 (such a key only moves a boundary to the next key).
package jobs
