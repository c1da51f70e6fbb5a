// Package stores opens the WebTable that a --db flag names, so that both
// programs read the flag the same way:
//
//	./webtable.db                        a directory: the embedded Badger store
//	bigtable://my-project/my-instance    Cloud Bigtable, table "webtable"
//	bigtable://my-project/my-instance/t  Cloud Bigtable, table "t"
//
// [Open] is the one way to open a WebTable from a name: it opens the
// bigtable-shaped store the name designates, does what that store needs
// before use (replaying the log a killed crawl left, for a reader of a
// directory), and hands the store to webtable.New.
//
// Cloud Bigtable is reached through bigtable/cloud, which honours
// BIGTABLE_EMULATOR_HOST (host:port of an emulator) as Google's tools do.
//
// # Caveats
//
//   - A Cloud Bigtable instance is not contacted until the first call, so
//     bad credentials or an unreachable instance show up as an error of
//     that call (reading the table list), not of the URL.
package stores

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
	"github.com/webtable/webtable/webtable"
)

// Mode says what [Open] may do to the store.
type Mode int

const (
	// ForCrawl opens the WebTable for a crawl, reading and writing: the
	// directory, the table and its column families are created when
	// absent, and every family's GC policy is set. A directory is sized by
	// CrawlStoreOptions, for memory that does not grow with the store.
	ForCrawl Mode = iota
	// ForRead opens an existing WebTable for reading, creating nothing: a
	// missing directory gives webtable.ErrNoStore, a store without the
	// table webtable.ErrNoWebTable. A directory is opened read-only, so
	// that a reader never changes it; see [Open] for the one exception.
	ForRead
)

// String names the mode.
func (m Mode) String() string {
	if m == ForCrawl {
		return "for a crawl"
	}
	return "for reading"
}

// IsCloud reports whether db names a Cloud Bigtable instance
// (bigtable://...) rather than a directory.
func IsCloud(db string) bool { return cloud.IsURL(db) }

// Open opens the WebTable at db (a directory or a bigtable:// URL) in
// mode. opts.Versions and opts.Store apply to ForCrawl (opts.Store to
// directories only); opts.Table is taken from the URL when it names one.
//
// The embedded store cannot be opened read-only after a crash left its log
// unreplayed; then, and only then, ForRead opens it for writing once, which
// replays the log and changes no data, closes it and opens it read-only.
//
// ForRead of a directory held by a crawl that serves it (crawl --serve, see
// [OpenServed]) reads it live, through that crawl's server; one held by a
// crawl that does not serve gives an error matching bigtable.ErrInUse.
func Open(ctx context.Context, db string, mode Mode, opts webtable.Options) (*webtable.WebTable, error) {
	if IsCloud(db) {
		return openCloud(ctx, db, mode, opts)
	}
	if mode == ForCrawl {
		return openDir(ctx, db, true, opts)
	}
	w, err := openDir(ctx, db, false, opts)
	if errors.Is(err, bigtable.ErrInUse) {
		if addr, ok := liveEndpoint(db); ok {
			return openLive(ctx, db, addr, opts)
		}
	}
	if !errors.Is(err, bigtable.ErrNeedsRecovery) {
		return w, err
	}
	rw, err := openDir(ctx, db, false, withStore(opts, bigtable.WithReadOnly(false)))
	if err != nil {
		return nil, fmt.Errorf("stores: replaying the log of %s: %w", db, err)
	}
	if err := rw.Close(); err != nil {
		return nil, fmt.Errorf("stores: replaying the log of %s: %w", db, err)
	}
	return openDir(ctx, db, false, opts)
}

// withStore returns opts with more store options after its own.
func withStore(opts webtable.Options, more ...bigtable.Option) webtable.Options {
	opts.Store = append(append([]bigtable.Option(nil), opts.Store...), more...)
	return opts
}

// openDir opens the embedded store in dir: for a crawl (create), sized by
// CrawlStoreOptions, or an existing WebTable, read-only unless opts.Store
// says otherwise.
func openDir(ctx context.Context, dir string, create bool, opts webtable.Options) (*webtable.WebTable, error) {
	if create {
		opts.Store = append(CrawlStoreOptions(), opts.Store...)
	} else {
		if _, err := os.Stat(dir); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s does not exist", webtable.ErrNoStore, dir)
			}
			return nil, fmt.Errorf("stores: %w", err)
		}
		opts.Store = append([]bigtable.Option{bigtable.WithReadOnly(true)}, opts.Store...)
	}
	db, err := bigtable.Open(dir, opts.Store...)
	if err != nil {
		return nil, fmt.Errorf("stores: opening %s: %w", dir, err)
	}
	w, err := webtable.New(ctx, db, db.Open(tableName(opts)), create, opts)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	return w, nil
}

func openCloud(ctx context.Context, db string, mode Mode, opts webtable.Options) (*webtable.WebTable, error) {
	cdb, table, err := cloud.OpenURL(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("stores: %w", err)
	}
	if table != "" {
		opts.Table = table
	}
	w, err := webtable.New(ctx, cdb, cdb.Open(tableName(opts)), mode == ForCrawl, opts)
	if err != nil {
		return nil, fmt.Errorf("stores: %s: %w", db, err)
	}
	return w, nil
}

// tableName is the table opts name, or webtable.TableName.
func tableName(opts webtable.Options) string {
	if opts.Table == "" {
		return webtable.TableName
	}
	return opts.Table
}
