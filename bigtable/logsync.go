package bigtable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// logSyncer flushes Badger's log files to disk.
type logSyncer struct {
	dir      string
	syncFile func(*os.File) error

	// floor[kind] is the number of the newest log file of each kind the
	// last sync saw: older ones received no write since, and were synced
	// after their last one. -1: nothing seen yet.
	floor [2]int
	files map[string]*os.File // open log files at or above their floor
}

func newLogSyncer(dir string, syncFile func(*os.File) error) *logSyncer {
	if syncFile == nil {
		syncFile = fdatasync
	}
	return &logSyncer{dir: dir, syncFile: syncFile, floor: [2]int{-1, -1}, files: map[string]*os.File{}}
}

// sync flushes every log file that may hold unsynced writes. It runs in
// one goroutine at a time (groupSync's leader).
//
// NB: Badger writes a log file to its end before it starts the next one,
// and numbers files in increasing order. A sync that lists the directory
// after a commit returned sees the file holding that commit, or a newer one
// (then the commit's file is older but at least the previous sync's
// floor), so syncing every file from the previous floor up covers it.
func (s *logSyncer) sync() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("bigtable: sync %s: %w", s.dir, err)
	}
	newest := s.floor
	created := false
	var errs []error
	var todo []*os.File
	for _, e := range entries {
		name := e.Name()
		kind, n := logFile(name)
		if kind < 0 || n < s.floor[kind] {
			continue
		}
		newest[kind] = max(newest[kind], n)
		f := s.files[name]
		if f == nil {
			if f, err = os.Open(filepath.Join(s.dir, name)); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue // a memtable log Badger deleted after flushing it to a synced table
				}
				errs = append(errs, err)
				continue
			}
			s.files[name] = f
			created = true
		}
		todo = append(todo, f)
	}
	if created {
		todo = append(todo, nil) // a new file's directory entry must reach the disk too
	}
	// NB: the flushes run side by side: a flush mostly waits for the
	// device, and the value log and the memtable log are flushed on every
	// sync.
	syncErrs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, f := range todo {
		flush := func() {
			if f == nil {
				syncErrs[i] = syncDir(s.dir)
			} else if err := s.syncFile(f); err != nil {
				syncErrs[i] = fmt.Errorf("%s: %w", filepath.Base(f.Name()), err)
			}
		}
		if i == len(todo)-1 {
			flush()
		} else {
			wg.Go(flush)
		}
	}
	wg.Wait()
	errs = append(errs, syncErrs...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bigtable: sync %s: %w", s.dir, err)
	}
	s.floor = newest
	for name, f := range s.files {
		if kind, n := logFile(name); n < s.floor[kind] {
			f.Close()
			delete(s.files, name)
		}
	}
	return nil
}

// close closes the files the syncer keeps open.
func (s *logSyncer) close() {
	for name, f := range s.files {
		f.Close()
		delete(s.files, name)
	}
}

// logFile parses the name of one of Badger's log files: its kind
// (kindMemLog or kindValueLog, or -1 for any other file) and number.
func logFile(name string) (kind, n int) {
	kind, n = badgerFile(name)
	if kind != kindMemLog && kind != kindValueLog || n < 0 {
		return -1, 0
	}
	return kind, n
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
