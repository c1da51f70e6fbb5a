package bigtable

import (
	"sync"
	"sync/atomic"
)

// byteRegexps caches compiled filter patterns by pattern: a read compiles
// its filter on every call, and a crawl reads with the same few filters
// thousands of times a second. A byteRegexp is immutable, so reads share
// them.
var byteRegexps struct {
	m sync.Map // pattern -> *byteRegexp
	n atomic.Int64
}

// maxCachedRegexps bounds the cache, so that programs that build patterns
// from data (a row key regexp per request) do not grow it without end;
// past it, patterns are compiled on each use.
const maxCachedRegexps = 4096

// compileByteRegexp returns the byteRegexp of pattern, compiled once.
func compileByteRegexp(pattern string) (*byteRegexp, error) {
	if r, ok := byteRegexps.m.Load(pattern); ok {
		return r.(*byteRegexp), nil
	}
	r, err := compileByteRegexpOnce(pattern)
	if err != nil {
		return nil, err
	}
	if byteRegexps.n.Load() < maxCachedRegexps {
		if _, loaded := byteRegexps.m.LoadOrStore(pattern, r); !loaded {
			byteRegexps.n.Add(1)
		}
	}
	return r, nil
}
