// Package spec describes the values of package bigtable's sealed types —
// filters, row sets, mutations, read and apply options, GC policies and
// read-modify-write rules — as plain exported data, so that code inside this
// module (the Cloud Bigtable adapter, bigtable/cloud) can translate them
// without package bigtable exporting anything new.
//
// # How the accessor works
//
// Package bigtable imports this package, never the other way round. Each of
// its filters and GC policies describes itself (a describe method beside
// its constructor); its file export_spec.go describes the other types and
// hands the conversion functions to Register in an init function; the functions here
// (FilterOf, RowSetOf, MutationOf, ...) call them. Any program that holds a
// bigtable value has linked package bigtable and so run that init; calling
// an accessor before it panics. Because this package is internal, only this
// module can use it: bigtable's public API is unchanged.
//
// The hooks take their argument as any because this package cannot name
// bigtable's types (that import would be a cycle). Each hook type-asserts
// and panics on a value of the wrong type, a programming error inside this
// module. A variant the hooks do not know (one added to bigtable later)
// yields an error wrapping ErrUnknownVariant, so an adapter fails loudly
// rather than translating it wrongly.
//
// GCPolicy is also the form package bigtable stores a family's policy in:
// its MarshalJSON and UnmarshalJSON are that on-disk format, which must not
// change.
//
// # Caveats
//
//   - The values are snapshots that share byte slices (Set values, value
//     ranges, appended values) with the originals; do not modify them.
//   - Nothing is validated here beyond the variant: a negative LatestN or a
//     bad pattern passes through, for the consumer to reject.
package spec
