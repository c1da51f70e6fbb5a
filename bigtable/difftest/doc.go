// Package difftest proves package bigtable right by comparison. It holds
// tests only (this file is its one non-test file):
//
//   - TestDifferential: random sequences of mutations and reads, applied both
//     to our store (github.com/webtable/webtable/bigtable, opened on a
//     temporary directory) and to Google's reference implementation
//     cloud.google.com/go/bigtable/bttest, reached through the real Cloud
//     Bigtable client over loopback gRPC. Every op must give the same answer.
//   - TestReferenceSelfConsistency: the same sequences on two bttest tables.
//     It checks the harness: an op whose reference answer is not
//     deterministic (see the exclusions below) makes it fail, with a
//     probability that grows with the number of sequences.
//   - TestCrashDurability: a child process applies numbered mutations
//     (1 to 6 cells over two families, one value in Badger's value log; every
//     other one rewrites three cells of one hot row; every sixth goes through
//     ApplyBulk to two rows) and acknowledges each on stdout after Apply or
//     ApplyBulk returns. The parent SIGKILLs it right after a random
//     acknowledgement, reopens the store and checks that every acknowledged
//     mutation is there and that every row holds all of a mutation or none
//     of it. Five rounds on one directory.
//   - TestSecondProcessGetsInUse: a second process opening a held directory
//     gets an error matching bigtable.ErrInUse, and succeeds once it is free.
//   - TestLimitRowsLikeCloudClient: LimitRows(0) and LimitRows(-1) behave as
//     in the Cloud client.
//
// # What is compared
//
// The op model (model_test.go) is a small data type translated to each API:
// Apply of 1..4 mutations (Set, with ServerTime too, DeleteCellsInColumn,
// DeleteTimestampRange, DeleteCellsInFamily, DeleteRow), conditional
// mutations (NewCondMutation with a random predicate or none, either branch
// possibly nil, and GetCondMutationResult), ApplyBulk of 1..5 rows (duplicate
// rows included, applied in order), ApplyReadModifyWrite (AppendValue,
// Increment), ReadRow and ReadRows with every row-set kind (SingleRow,
// RowList including the empty and unsorted lists with duplicates, NewRange
// including unbounded and inverted ones, PrefixRange including "" and
// prefixes ending in 0xFF, InfiniteRange, RowRangeList with overlapping
// ranges), RowFilter with nested filter trees (ChainFilters,
// InterleaveFilters, RowKeyFilter, FamilyFilter, ColumnFilter, ValueFilter,
// LatestNFilter, StripValueFilter, TimestampRangeFilterMicros,
// ColumnRangeFilter, CellsPerRowLimitFilter, CellsPerRowOffsetFilter,
// PassAllFilter, BlockAllFilter, and ConditionFilter, which sends our store
// down its whole-row filter path), LimitRows, a callback that stops early,
// and our iterator form (Rows). Once in a while our store is closed and
// reopened mid-sequence. Every sequence ends with a full unfiltered scan.
//
// Per op the test compares: whether an error was returned (not its text; but
// our errors must match the sentinel for the cause: ErrUnknownFamily,
// ErrInvalidIncrement or ErrInvalidMutation), the predicate result of a
// conditional mutation, the per-row failures of ApplyBulk, and the returned
// rows: keys in order, and per row every cell (family, qualifier, timestamp,
// value), families in name order (a Row is a map), cells in the order
// returned. Comparison is by go-cmp.
//
// The alphabets are small so that operations collide: 11 row keys, including
// keys that are prefixes of each other and keys with 0x00 and 0xFF bytes
// (bttest accepts any non-empty key); families f, ff and g (and the
// undeclared u); 7 qualifiers including "" and the bytes 0x00 and 0xFF;
// values including "", 0xFF, a two-byte UTF-8 sequence, 8-byte counters and
// one 300-byte value (beyond our default value threshold, so it is read from
// Badger's value log); regular expressions that tell raw-byte matching from
// UTF-8 matching. Timestamps are multiples of 1000 µs (bttest keeps
// milliseconds): 0, a few in 1970, and a few in the far future.
//
// The normal run does 500 sequences of 1 to 60 ops, about 16,000 ops
// (TestReferenceSelfConsistency: 100 sequences; -short: a tenth of each).
// Flags: -difftest.n=5000 runs more sequences, -difftest.ops=N makes them
// longer, -difftest.base=N moves the seeds, and -difftest.seed=N replays one
// sequence (with the same -difftest.ops). On a mismatch the test shrinks the
// op log (dropping ops, then parts of ops, keeping within the generator's
// rules) to a short one that still fails, and prints it with the seed and a
// replay command.
//
// # Excluded nondeterminism
//
// bttest (bttest/inmem.go, v1.58.0) is a model, not a specification. Where
// its answer depends on Go map order, an unstable sort or the clock, or where
// it departs from Cloud Bigtable in a way our store need not copy, the
// generator does not produce the op, or the comparison normalises it. The
// NB: comments in gen_test.go and result_test.go give the details:
//
//   - CellsPerRowLimitFilter and CellsPerRowOffsetFilter: bttest walks a
//     row's families in map order (filterRow ranges over r.families), so the
//     cells kept across families are random. They are only generated where
//     the input is confined to one family: after a FamilyFilter naming one
//     family, or a ColumnRangeFilter, earlier in the same chain.
//   - InterleaveFilters: cells of one column with one timestamp coming from
//     different branches (one stripped by StripValueFilter, one not) are in
//     an order Cloud Bigtable leaves unspecified (bttest: merge order through
//     sort.Sort, which is not stable). Results sort such runs by value, and
//     no LatestNFilter or CellsPerRow* filter is generated after an
//     interleave with a stripping branch.
//   - Wall-clock timestamps: ReadModifyWrite stamps the new cell with
//     max(now, newest cell), and the two stores read different clocks at
//     different granularities. Timestamps within [start-1h, start+48h] are
//     compared as NOW. A rule on a column whose newest cell is NOW is dropped
//     (whether two calls share a millisecond decides one cell or two), and
//     the rules of one ReadModifyWrite name distinct columns. Sets with
//     ServerTime are generated, but one on a column that already holds a NOW
//     cell, or a second one on the same column in one op, gets a fixed
//     timestamp instead, for the same reason.
//   - ReadModifyWrite failures: bttest applies the rules before a failing
//     one (undeclared family; Increment of a value that is not 8 bytes) and
//     then fails. A failing ReadModifyWrite is reduced to its failing rule,
//     so the expected outcome is "error, nothing changed".
//   - Invalid mutations (Set or DeleteCellsInColumn on an undeclared family)
//     only come first in a Mutation: bttest applies mutations one by
//     one and leaves the ones before the invalid one applied; our store,
//     like Cloud Bigtable, rejects the whole Mutation. None appear in
//     conditional branches: bttest validates only the branch it applies.
//     DeleteCellsInFamily of an undeclared family is not generated: bttest
//     accepts it silently. Nor is an empty or inverted DeleteTimestampRange:
//     bttest rejects it only when the row has cells in that family.
//   - Requests bttest rejects that our API may accept: chains and
//     interleaves of fewer than two filters, LatestNFilter(0),
//     CellsPerRowLimitFilter(0), an inverted range inside a RowRangeList.
//     Not generated; nor are ColumnRangeFilter and
//     TimestampRangeFilterMicros with start after end, nor an empty entry in
//     ApplyBulk (bttest accepts it when another entry has mutations). An
//     empty Mutation in Apply is generated: both must reject it.
//   - LimitRows(n) with n <= 0 is left to TestLimitRowsLikeCloudClient: the
//     Cloud client reads no rows for 0 and fails for a negative n.
//   - GC policies are left out: bttest collects on a background timer.
//
// # Caveats
//
// The reference is an in-memory fake with known gaps; agreement with it is
// evidence, not proof, of agreement with Cloud Bigtable. Error texts and
// error kinds are not compared, only whether an error occurred. Concurrency is
// not exercised here (each sequence is sequential); the bigtable package's own
// tests cover concurrent Apply and ReadModifyWrite. The crash test proves
// durability against process death (SIGKILL), not against power loss.
package difftest
