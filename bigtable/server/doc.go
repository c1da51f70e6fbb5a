// Package server serves a store of package bigtable over Cloud Bigtable's
// own gRPC API, so that Google's clients (Go, Java, Python, cbt) read and
// write it as they would Cloud Bigtable: point them at it with
// BIGTABLE_EMULATOR_HOST=ADDR.
//
//	db, _ := bigtable.Open("./webtable.db")
//	srv, _ := server.Listen(db, "127.0.0.1:8086", server.WithProtectedTables("webtable"))
//	defer db.Close()
//	defer srv.Close(3 * time.Second)
//
// It serves two services, plaintext and without authentication:
//
//   - google.bigtable.v2.Bigtable: ReadRows (row sets, ranges, every filter
//     the store has, row limits), MutateRow, MutateRows (a status per
//     entry), CheckAndMutateRow, ReadModifyWriteRow, SampleRowKeys (the
//     store's tablet boundaries, with the bytes before each) and
//     PingAndWarm;
//   - google.bigtable.admin.v2.BigtableTableAdmin: CreateTable, GetTable,
//     ListTables (families with their GC rules), DeleteTable,
//     ModifyColumnFamilies (with or without update_mask) and DropRowRange.
//
// Table names take their full resource form,
// projects/P/instances/I/tables/T, for any P and I: every instance is the
// one store. Requests are translated by bigtable/internal/wire; what the
// store cannot honour exactly is refused (Unimplemented or
// InvalidArgument), never answered differently.
//
// A ReadRows reads in batches of about 1 MiB of responses, each from a
// fresh snapshot of the store that starts after the last row sent (Cloud
// Bigtable promises no snapshot across a stream either), and nothing of the
// store is held while the client receives: a slow or stalled client pins no
// old versions and at most three batches of memory. It reads the cells
// through bigtable/internal/hooks.ReadCells, which hands out each row's
// cells from one reused buffer instead of a bigtable.Row, and writes them
// straight into the response buffers in protobuf wire form (chunks.go):
// a scan allocates nothing per row of its own.
//
// # Caveats
//
//   - Not served: reversed scans, authorized and materialized views, labels
//     and sink filters, aggregate (typed) families and their mutations,
//     change streams, backups, snapshots, replication and IAM.
//   - A chain or interleave of fewer than two filters is refused with
//     InvalidArgument, as Cloud Bigtable and package bigtable refuse it
//     (the emulator accepts it).
//   - ModifyColumnFamilies checks every modification before it makes any,
//     then makes them one by one: a failure of the store part-way (a
//     family created meanwhile by another caller) leaves the earlier ones
//     made.
//   - DropRowRange deletes rows in batches of a thousand: a concurrent
//     writer may add rows to the range while it runs.
//   - A row is never split between two responses (the Go client requires
//     whole rows per response), so a row must encode to less than the
//     client's receive limit (256 MiB for Google's clients).
//   - WithProtectedTables refuses DeleteTable, DropRowRange and dropping a
//     column family of the tables a program writes; everything else,
//     writes, row deletes and GC policy changes included, is open to any
//     client that reaches the port.
//   - A client holds at most MaxConnections connections of MaxStreams
//     calls each; a connection idle for MaxIdle is closed, a silent one is
//     pinged, and one that pings more often than MinClientPing is sent
//     GOAWAY.
package server
