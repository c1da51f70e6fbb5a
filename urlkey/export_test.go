package urlkey

// PrefixEnd exposes prefixEnd to the tests.
func PrefixEnd(p string) string { return prefixEnd([]byte(p)) }

// MapHost exposes the IDNA path of canonHost, so tests can check that the
// fast path for plain ASCII hosts gives the same answer.
func MapHost(h string) (string, error) { return mapHost(h) }

// NeedsMapping exposes needsMapping.
func NeedsMapping(h string) bool { return needsMapping(h) }
