package main

import (
	"github.com/webtable/webtable/internal/memlimit"
	"github.com/webtable/webtable/internal/stores"
)

// defaultMemoryLimit is the Go soft memory limit of a crawl unless
// GOMEMLIMIT sets one (stores.CrawlMemoryLimit says why 448 MiB).
const defaultMemoryLimit = stores.CrawlMemoryLimit

// setMemoryLimit is memlimit.Set: GOMEMLIMIT, when set, wins.
var setMemoryLimit = memlimit.Set
