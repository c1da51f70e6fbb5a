package stores

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/webtable/webtable/webtable"
)

// MigrateForCrawl brings the store w at db of an older format version to
// the newest, once, in steps (webtable.Migrate; a stopped migration
// resumes), and says on log what it moved; a row that cannot be read is
// named and left. An error is the store's (it failed, or holds a form
// it cannot migrate), a *MigrateError worded for crawl's users as crawl
// prints it.
func MigrateForCrawl(ctx context.Context, w *webtable.WebTable, db string, log io.Writer) error {
	from, err := w.Migrate(ctx, func(s webtable.MigrateStep) {
		if s.To == webtable.FormatFrontierRows && s.Rows > 0 {
			fmt.Fprintf(log, "moved %d queued pages of %s to its frontier\n", s.Rows, db)
		}
		if len(s.Allowed) > 0 {
			fmt.Fprintf(log, "%s had pages queued on private addresses (%s): its crawls go on fetching them\n",
				db, strings.Join(s.Allowed, ", "))
		}
	}, func(b webtable.BadEntry) {
		fmt.Fprintf(log, "crawl: skipping a row that cannot be read: %v\n", b)
	})
	if err != nil {
		return &MigrateError{DB: db, Err: err}
	}
	if from < webtable.FormatNewest {
		fmt.Fprintf(log, "migrated %s from format version %d to %d\n", db, from, webtable.FormatNewest)
	}
	return nil
}

// MigrateError is the error of a migration that failed: the store failed,
// or holds a form it cannot migrate.
type MigrateError struct {
	DB  string // the store, as --db names it
	Err error
}

// Error says which store failed to migrate, to which version, and why.
func (e *MigrateError) Error() string {
	return fmt.Sprintf("migrating %s to format version %d: %v (running crawl again resumes)", e.DB, webtable.FormatNewest, e.Err)
}

// Unwrap returns the store's error.
func (e *MigrateError) Unwrap() error { return e.Err }

// OpenMigrated opens the store db of a crawl with open and migrates it
// (MigrateForCrawl), closing it again when that fails.
func OpenMigrated(ctx context.Context, db string, log io.Writer, open func(ctx context.Context) (*webtable.WebTable, error)) (*webtable.WebTable, error) {
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	if err := MigrateForCrawl(ctx, w, db, log); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// OpenServedMigrated is OpenServed, then MigrateForCrawl, then Announce on
// log; a store that fails to migrate is closed again.
func OpenServedMigrated(ctx context.Context, db string, opts webtable.Options, addr string, allowRemote bool, log io.Writer) (*Served, error) {
	s, err := OpenServed(ctx, db, opts, addr, allowRemote)
	if err != nil {
		return nil, err
	}
	if err := MigrateForCrawl(ctx, s.WebTable, db, log); err != nil {
		s.StopServing()
		s.WebTable.Close()
		return nil, err
	}
	s.Announce(log, db)
	return s, nil
}

// Announce writes to log where the store db is served and how to reach
// it, with a warning first when other machines can reach it.
func (s *Served) Announce(log io.Writer, db string) {
	addr := s.Addr()
	if !IsLoopback(addr) {
		fmt.Fprintf(log, "crawl: warning: %s can be reached from other machines, and the protocol has no authentication: anyone who reaches it can read and change the store\n", addr)
	}
	fmt.Fprintf(log, "serving %s on %s (Cloud Bigtable's API, table %q): \"query --db %s\" reads it live, Bigtable clients and cbt with BIGTABLE_EMULATOR_HOST=%s\n",
		db, addr, webtable.TableName, db, addr)
}

// ResetDemo readies db for crawl --demo, which recreates its store: it
// removes the store of an earlier demo only when db is the default demo
// directory defaultDir; any other db must be new or empty (a Cloud
// Bigtable table must not exist yet), so that the demo never deletes a
// store of real crawls. Its errors say which.
func ResetDemo(ctx context.Context, db, defaultDir string) error {
	if IsCloud(db) {
		if w, err := Open(ctx, db, ForRead, webtable.Options{}); err == nil {
			w.Close()
			return fmt.Errorf("--demo needs a new table, and %s already holds one: name another table (bigtable://PROJECT/INSTANCE/TABLE)", db)
		}
		return nil
	}
	entries, err := os.ReadDir(db)
	switch {
	case os.IsNotExist(err) || (err == nil && len(entries) == 0):
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %v", db, err)
	case filepath.Clean(db) == filepath.Clean(defaultDir):
		if err := os.RemoveAll(db); err != nil {
			return fmt.Errorf("cannot remove the old demo store %s: %v", db, err)
		}
		return nil
	default:
		return fmt.Errorf("--demo recreates its store, and %s is not empty: name a new directory with --db, or leave --db out to use %s", db, defaultDir)
	}
}
