package main

import (
	"runtime/debug"

	"github.com/webtable/webtable/jobs"
)

// setMemoryLimit sets the Go runtime's soft memory limit to
// jobs.MemoryLimit, unless getenv("GOMEMLIMIT") is set, in which case the
// runtime has already applied that. It returns a function that restores
// the previous limit.
func setMemoryLimit(getenv func(string) string) (restore func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(jobs.MemoryLimit)
	return func() { debug.SetMemoryLimit(old) }
}
