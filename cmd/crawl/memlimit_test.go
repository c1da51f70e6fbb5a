package main

import (
	"runtime/debug"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/internal/stores"
)

func TestSetMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOMEMLIMIT" {
				return v
			}
			return ""
		}
	}
	restore := setMemoryLimit(env(""), 300<<20)
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("without GOMEMLIMIT: limit %d, want %d", got, 300<<20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after restore: limit %d, want %d as before", got, before)
	}
	restore = setMemoryLimit(env("2GiB"), 300<<20)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT set: limit %d, want it left at %d", got, before)
	}
	restore()
}

// TestMemoryLimitCoversStore: the store a crawl opens has a memory that
// does not grow with it, and the crawl's memory limit leaves room for it.
func TestMemoryLimitCoversStore(t *testing.T) {
	s := bigtable.SizingOf(stores.CrawlStoreOptions()...)
	w := s.WriteMemory()
	if w < 0 {
		t.Fatalf("the crawl's store sizing %+v lets Badger's memory grow with the store", s)
	}
	// NB: WriteMemory sums worst cases that do not all happen at once:
	// crawls peaked at 50-77% of it live (README). The soft limit must
	// stay well above that, here at least 80% of the estimate; a sizing
	// that outgrows it needs the limit measured again.
	if w*4/5 > defaultMemoryLimit {
		t.Errorf("the crawl's store may hold %d MiB (%+v): too much for the %d MiB memory limit", w>>20, s, defaultMemoryLimit>>20)
	}
}
