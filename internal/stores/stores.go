// Package stores opens the WebTable that a --db flag names, so that both
// programs read the flag the same way:
//
//	./webtable.db                        a directory: the embedded Badger store
//	bigtable://my-project/my-instance    Cloud Bigtable, table "webtable"
//	bigtable://my-project/my-instance/t  Cloud Bigtable, table "t"
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

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
	"github.com/webtable/webtable/webtable"
)

// IsCloud reports whether db names a Cloud Bigtable instance
// (bigtable://...) rather than a directory.
func IsCloud(db string) bool { return cloud.IsURL(db) }

// Create opens the WebTable at db for a crawl: the directory, the table
// and its column families are created when absent.
func Create(ctx context.Context, db string, opts webtable.Options) (*webtable.WebTable, error) {
	if !IsCloud(db) {
		return webtable.Open(ctx, db, opts)
	}
	return openCloud(ctx, db, true, opts)
}

// OpenForRead opens an existing WebTable at db for reading, creating
// nothing (see webtable.OpenForRead for the embedded store). A directory
// held by a crawl that serves it (crawl --serve, see CreateServed) is read
// live through that crawl's server; one held by a crawl that does not
// serve gives an error matching bigtable.ErrInUse.
func OpenForRead(ctx context.Context, db string) (*webtable.WebTable, error) {
	if IsCloud(db) {
		return openCloud(ctx, db, false, webtable.Options{})
	}
	w, err := webtable.OpenForRead(ctx, db)
	if errors.Is(err, bigtable.ErrInUse) {
		if addr, ok := liveEndpoint(db); ok {
			return openLive(ctx, db, addr)
		}
	}
	return w, err
}

func openCloud(ctx context.Context, db string, create bool, opts webtable.Options) (*webtable.WebTable, error) {
	cdb, table, err := cloud.OpenURL(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("stores: %w", err)
	}
	if table != "" {
		opts.Table = table
	}
	name := opts.Table
	if name == "" {
		name = webtable.TableName
	}
	w, err := webtable.New(ctx, cdb, cdb.Open(name), create, opts)
	if err != nil {
		return nil, fmt.Errorf("stores: %s: %w", db, err)
	}
	return w, nil
}
