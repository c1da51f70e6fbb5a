package bigtable

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data (and the metadata needed to read it) to disk.
// NB: Badger writes its logs through mmap; on Linux an fdatasync of the
// file flushes pages dirtied through a mapping as well.
func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
