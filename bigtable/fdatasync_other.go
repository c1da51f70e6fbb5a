//go:build !linux

package bigtable

import "os"

// fdatasync flushes f to disk; where there is no fdatasync, with fsync.
func fdatasync(f *os.File) error { return f.Sync() }
