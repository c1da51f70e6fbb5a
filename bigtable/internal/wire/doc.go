// Package wire translates between package bigtable's values and the
// protocol messages of Cloud Bigtable's gRPC API (bigtablepb for data,
// adminpb for the schema): filters, row sets, mutations, read-modify-write
// rules and GC policies.
//
// The server of package bigtable/server uses it to turn requests into calls
// on a *bigtable.Table; GC policies go both ways (GetTable answers with the
// rule of each family). Every message the store cannot honour exactly is
// refused with an error wrapping ErrUnimplemented (a reversed scan, a label
// or sink filter, an aggregate cell) or ErrInvalid (what Cloud Bigtable
// itself rejects: a chain or interleave of fewer than two filters, an empty
// row key, a mutation without operations), never translated into something
// that would answer differently.
//
// # Caveats
//
//   - Regular expressions travel as bytes and reach package bigtable as
//     strings of those bytes, which it matches byte by byte as Cloud
//     Bigtable does.
//   - An open lower bound s is the closed bound s+"\x00" (the next string in
//     byte order), and a closed upper bound e the open bound e+"\x00"; that
//     is how column and value ranges of every bound kind map onto package
//     bigtable's half-open ones, exactly.
package wire
