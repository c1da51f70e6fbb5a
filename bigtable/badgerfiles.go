package bigtable

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The kinds of Badger's files in a store's directory that the store
// reads the names of, by extension: memtable logs (00001.mem), value
// logs (000001.vlog) and tables (000001.sst).
const (
	kindMemLog = iota
	kindValueLog
	kindTable
)

// badgerExts are the extensions of the kinds of files, by kind.
var badgerExts = [...]string{kindMemLog: ".mem", kindValueLog: ".vlog", kindTable: ".sst"}

// badgerFile parses the name of one of Badger's files: its kind by
// extension (kindMemLog, kindValueLog or kindTable; -1 for any other
// file) and its number, -1 when the rest of the name is not a decimal
// number.
func badgerFile(name string) (kind, n int) {
	for k, ext := range badgerExts {
		if base, ok := strings.CutSuffix(name, ext); ok {
			v, err := strconv.ParseUint(base, 10, 63)
			if err != nil {
				return k, -1
			}
			return k, int(v)
		}
	}
	return -1, -1
}

// LockHolder returns the id of the process that has the store in dir open
// for writing, as Badger recorded it beside its directory lock, or 0 when
// none is recorded or that process has exited. It is what the ErrInUse
// message names.
func LockHolder(dir string) int { return lockHolder(dir) }

// lockHolder returns the id of the process holding dir, or 0 if it is not
// known. Badger writes the id of a read-write opener into dir/LOCK and
// removes the file on Close (a read-only opener writes nothing); a process
// that died leaves a stale file, so the id counts only if the process exists.
func lockHolder(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "LOCK"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return 0
	}
	return pid
}
