// Package cloud runs package bigtable's API on Cloud Bigtable, through
// Google's client cloud.google.com/go/bigtable. It lives in its own package
// so that programs using only the embedded Badger store never link gRPC.
//
// # Main types
//
//   - DB is one Cloud Bigtable instance, from Open(ctx, project, instance,
//     opts...) or OpenURL(ctx, "bigtable://PROJECT/INSTANCE[/TABLE]"). Its
//     schema calls mirror *bigtable.DB's: CreateTable, DeleteTable, Tables,
//     CreateColumnFamily, DeleteColumnFamily, SetGCPolicy, Families.
//   - Table, from (*DB).Open, has the data-plane methods of
//     *bigtable.Table: Apply, ApplyBulk, ReadRow, ReadRows, Rows,
//     ReadRowsParallel (one stream per piece between SampleRowKeys' keys),
//     ApplyReadModifyWrite, SampleRowKeys. They take and return package
//     bigtable's own types (Mutation, RowSet, Filter, ReadOption, Row), so
//     code written against *bigtable.Table runs here by changing the open
//     call; bigtable/bigtabletest runs one conformance suite on both.
//   - URL and ParseURL read bigtable://PROJECT/INSTANCE[/TABLE]; IsURL tells
//     such a string from a directory of the embedded store.
//
// bigtable's filters, row sets, mutations and policies are sealed types.
// This package reads them through the module-internal package
// bigtable/internal/spec (see its documentation) and builds the Cloud
// client's equivalents.
//
// BIGTABLE_EMULATOR_HOST (host:port) makes Open connect to an emulator
// without credentials, as Google's client and tools do; there is no other
// environment variable.
//
// Errors wrap package bigtable's sentinels where they correspond, so
// errors.Is works alike on both stores: a missing table is
// bigtable.ErrNotFound, an existing one bigtable.ErrExists, an undeclared
// family bigtable.ErrUnknownFamily; invalid row keys, empty or nested
// mutations and bad filter arguments are caught before any call with
// bigtable's sentinels (ErrInvalidRowKey, ErrInvalidMutation,
// ErrInvalidFilter). The gRPC status stays in the chain (status.Code works).
//
// # Caveats
//
//   - Timestamps are truncated to milliseconds by the Cloud client (Set,
//     DeleteTimestampRange, TimestampRangeFilterMicros); bigtable keeps
//     microseconds. Write whole milliseconds (Timestamp.TruncateToMilliseconds)
//     for data that must read back the same from both stores.
//   - GC runs in the background on Cloud Bigtable (and on a timer in the
//     emulator): a read may return cells the family's policy has already
//     condemned, which bigtable's store never does. Ages are kept in whole
//     seconds (Families rounds a MaxAgePolicy down to seconds).
//   - An empty UnionPolicy or IntersectionPolicy is sent as NoGcPolicy and
//     one with a single member as that member (what bigtable means by them;
//     Cloud Bigtable wants two or more). A ChainFilters or
//     InterleaveFilters of fewer than two filters fails with
//     bigtable.ErrInvalidFilter before any call, as on bigtable's store
//     (the emulator would accept it).
//   - ReadRows streams from the server; unlike bigtable's store it does not
//     read one snapshot of the table, and a long callback can time out the
//     stream.
//   - Families come out of CellsPerRowLimitFilter and CellsPerRowOffsetFilter
//     in the server's order (the emulator's is random); bigtable's store
//     uses name order.
//   - The client's built-in metrics export to Cloud Monitoring is off (it
//     needs extra permissions and is no part of this package's contract).
//     There are no app profiles, authorized views, labels or reverse scans.
//   - A conditional mutation with nothing in either branch (Cloud Bigtable
//     refuses it; bigtable allows it) is evaluated with a read, to report
//     GetCondMutationResult, and writes nothing.
//   - Mutations are checked against bigtable's limits (row key, qualifier,
//     value size, timestamps) before they are sent; they are Cloud
//     Bigtable's limits too. A read request must stay under 512 KB
//     serialised (Cloud's limit), so very long RowLists must be split.
//   - SampleRowKeys ends with "" like bigtable's; the Cloud client drops
//     that empty key, so this package appends it.
//   - The emulator (bttest) writes the operations of a mutation that come
//     before an undeclared family before failing; Cloud Bigtable and
//     bigtable's store write nothing (bigtabletest.Features.PartialWriteOnError).
//   - Copies of one cell from InterleaveFilters come out in the server's
//     order, which may differ from bigtable's sub-filter order.
package cloud
