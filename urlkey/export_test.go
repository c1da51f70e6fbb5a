package urlkey

import "github.com/webtable/webtable/internal/keyspace"

// PrefixEnd is the prefix successor PrefixRange uses, for the tests.
func PrefixEnd(p string) string { return keyspace.PrefixEnd(p) }

// MapHost exposes the IDNA path of canonHost, so tests can check that the
// fast path for plain ASCII hosts gives the same answer.
func MapHost(h string) (string, error) { return mapHost(h) }

// NeedsMapping exposes needsMapping.
func NeedsMapping(h string) bool { return needsMapping(h) }
