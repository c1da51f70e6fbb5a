package main

import (
	"github.com/webtable/webtable/internal/memlimit"
	"github.com/webtable/webtable/jobs"
)

// setMemoryLimit sets the Go runtime's soft memory limit to
// jobs.MemoryLimit, unless GOMEMLIMIT is set (memlimit.Set).
func setMemoryLimit(getenv func(string) string) (restore func()) {
	return memlimit.Set(getenv, jobs.MemoryLimit)
}
