// Package bigtabletest is the conformance suite of the bigtable data model:
// one set of cases that every store runs, so the embedded Badger store
// (package bigtable) and Cloud Bigtable (package bigtable/cloud, tested on
// Google's emulator) are held to the same behaviour.
//
// # Main types
//
//   - Table and Schema are the data-plane and schema methods both stores
//     have; Store joins them. Adapt(db, db.Open) makes a Store of a
//     *bigtable.DB or a *cloud.DB.
//   - RunConformance(t, features, open) runs every case as a subtest, each on
//     a fresh store from open with a table "t" holding families "A" and "B".
//   - Features names the differences a store has (Badger, Cloud, Emulator);
//     a case that depends on one is skipped on stores without it, saying
//     why.
//
// The cases cover the data-model example (row aaa, A:foo at 15000 "y" and
// 4000 "m"), every mutation kind, conditional mutations and their result,
// read-modify-write, ApplyBulk with per-row failures, every row set kind,
// LimitRows, early stops, a representative table of filters and their
// argument errors, the schema calls, sentinel errors (errors.Is), missing
// rows as empty results, and key order over keys holding 0x00 and 0xFF.
//
// This package imports only package bigtable, so tests of code that uses
// just the embedded store do not link gRPC.
//
// # Caveats
//
//   - All timestamps are whole milliseconds, as Cloud Bigtable stores them;
//     microsecond behaviour is checked only with Features.Micros.
//   - GC is asserted only with Features.GCAtRead: Cloud Bigtable and the
//     emulator collect in the background.
//   - Orders the two stores define differently are not compared: families
//     are rendered in name order, and CellsPerRow filters are applied to a
//     single family.
//   - RowSampleFilter is random; only its error-free run, key order and
//     subset are checked.
package bigtabletest
