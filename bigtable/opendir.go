package bigtable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dgraph-io/badger/v4"
)

// What Open checks of a store's directory, before Badger opens it and
// after it refused to: a directory that is not a store, a damaged
// MANIFEST, a directory another process holds, an empty memtable log.

// checkDir refuses directories that hold files but no Badger MANIFEST, so a
// mistyped path never gets Badger files sprayed into it. It returns the name
// of a table (.sst) file in dir, if there is one: a store with table files
// has data, so init must find its format marker.
func checkDir(dir string, readOnly bool) (tableFile string, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		if readOnly {
			return "", fmt.Errorf("bigtable: open %s read-only: %w", dir, err)
		}
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("bigtable: open %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return "", nil
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		return "", fmt.Errorf("%w: %s holds files but no Badger MANIFEST", ErrNotStore, dir)
	}
	var tables []string
	cleanClose := true
	for _, e := range entries {
		switch kind, _ := badgerFile(e.Name()); kind {
		case kindTable:
			tables = append(tables, e.Name())
		case kindMemLog:
			cleanClose = false // a memtable's log: Badger may have crashed mid-flush
			if info, err := e.Info(); readOnly && err == nil && info.Size() == 0 {
				// NB: only a read-write Open may remove it (openBadgerRepaired).
				return "", fmt.Errorf("%w: %s holds the empty memtable log %s of a process killed while creating it", ErrNeedsRecovery, dir, e.Name())
			}
		}
		if e.Name() == "LOCK" {
			// NB: Badger removes LOCK last in Close. Left behind, it says the
			// opener died, perhaps in Close's L0 compaction, after the empty
			// memtable's log was deleted: its unlisted output must go.
			cleanClose = false
		}
	}
	if len(tables) == 0 {
		return "", nil
	}
	if cleanClose {
		if err := checkManifest(dir, tables); err != nil {
			return "", err
		}
	}
	return tables[0], nil
}

// checkManifest checks that Badger's MANIFEST lists every table file of a
// store that was closed cleanly (no memtable log, no LOCK left). NB:
// Badger deletes the table files its MANIFEST does not list, even when
// opening read-only, because after a crash they are the output of an
// unfinished compaction; after a clean close they are data that a damaged
// MANIFEST lost, and must stay.
func checkManifest(dir string, tables []string) error {
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	for _, name := range tables {
		_, id := badgerFile(name)
		if id < 0 {
			continue // not one of Badger's
		}
		if _, ok := m.Tables[uint64(id)]; !ok {
			return fmt.Errorf("%w: %s holds the table file %s, which its MANIFEST does not list: the MANIFEST is damaged or truncated (nothing was changed)", ErrCorrupt, dir, name)
		}
	}
	return nil
}

// readManifest reads the MANIFEST of the Badger store in dir (closed, or
// not written meanwhile): which table files it holds, at which level. A
// MANIFEST that does not replay gives ErrCorrupt.
func readManifest(dir string) (badger.Manifest, error) {
	f, err := os.Open(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		return badger.Manifest{}, fmt.Errorf("bigtable: open %s: %w", dir, err)
	}
	defer f.Close()
	m, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		return badger.Manifest{}, fmt.Errorf("%w: %s: MANIFEST: %v", ErrCorrupt, dir, err)
	}
	return m, nil
}

func openError(dir string, err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) ||
		strings.Contains(msg, "Another process is using this Badger database"):
		if pid := lockHolder(dir); pid > 0 {
			return fmt.Errorf("%w: %s is held by process %d", ErrInUse, dir, pid)
		}
		return fmt.Errorf("%w: %s is held by a process that did not record its id", ErrInUse, dir)
	case errors.Is(err, badger.ErrTruncateNeeded) || strings.Contains(msg, badger.ErrTruncateNeeded.Error()):
		return fmt.Errorf("%w: %s: %v", ErrNeedsRecovery, dir, err)
	case strings.Contains(msg, "checksum mismatch") || strings.Contains(msg, "bad magic") ||
		strings.Contains(msg, "failed to initialize table"):
		// NB: Badger has no sentinel for these; TestOpenCorruptStore
		// damages real stores to keep the list honest.
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, dir, err)
	}
	return fmt.Errorf("bigtable: open %s: %w", dir, err)
}

// An empty memtable log left by a killed process.
//
// Badger creates a memtable's log file and then sizes it. A process killed
// between the two leaves a file of 0 bytes, which holds no write; Badger
// v4.9.6 then refuses every open of the store with "while opening
// memtables ... Create a new file" (ristretto's z.NewFile) instead of
// dropping it. Open removes such files, under Badger's directory lock,
// and opens again; checkDir refuses them to a read-only Open, which may
// not change the directory.

// openBadgerRepaired is openBadger, which after a refusal for an empty
// memtable log removes the empty logs and tries once more.
func openBadgerRepaired(bo badger.Options) (*badger.DB, error) {
	bdb, err := openBadger(bo)
	if err == nil || bo.ReadOnly || !isEmptyMemLogError(err) {
		return bdb, err
	}
	if rerr := removeEmptyMemLogs(bo.Dir); rerr != nil {
		// NB: both wrapped: a process that took the store meanwhile is
		// ErrInUse to openError.
		return nil, fmt.Errorf("%w; removing the empty memtable log a killed process left: %w", err, rerr)
	}
	return openBadger(bo)
}

// isEmptyMemLogError reports whether Badger refused to open a store because
// one of its memtable logs is empty.
func isEmptyMemLogError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "while opening memtables") && strings.Contains(msg, "Create a new file")
}

// removeEmptyMemLogs deletes the memtable logs of 0 bytes in dir. It holds
// the lock Badger takes on the directory (flock on the directory itself),
// so no process has the store open meanwhile: one that had might be
// creating a log just then.
func removeEmptyMemLogs(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("locking the directory: %w", err)
	}
	defer syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	entries, err := d.ReadDir(-1)
	if err != nil {
		return err
	}
	removed := 0
	for _, e := range entries {
		if kind, _ := badgerFile(e.Name()); kind != kindMemLog {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if info.Size() != 0 {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
		removed++
	}
	if removed > 0 {
		return d.Sync()
	}
	return nil
}
