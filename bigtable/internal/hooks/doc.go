// Package hooks is a module-internal door into package bigtable for the
// few callers inside this module that need more than its public API: the
// gRPC server (bigtable/server) reads cells without building Rows, and
// tests of other packages run a tablet split pass at a moment of their
// choosing instead of waiting for the background splitter.
//
// As with package spec, bigtable imports this package, never the other way
// round: its file export_hooks.go registers the functions at init, and the
// functions here call them. Any program holding a *bigtable.DB has run that
// init. Because this package is internal, bigtable's public API is
// unchanged.
//
// # Caveats
//
//   - Arguments are typed any (this package cannot name bigtable's types);
//     a value of the wrong type panics, a programming error in this module.
//   - The byte slices a cell read hands out are valid only during the call
//     that receives them.
package hooks
