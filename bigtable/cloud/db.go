package cloud

import (
	"context"
	"errors"
	"fmt"
	"slices"

	gbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DB is one Cloud Bigtable instance: a data client and an admin client. It
// mirrors *bigtable.DB: the schema calls are methods of DB, and Open gives a
// Table. It is safe for concurrent use.
type DB struct {
	project, instance string
	client            *gbt.Client
	admin             *gbt.AdminClient
}

// Open connects to the Cloud Bigtable instance project/instance. opts go to
// both clients (credentials, endpoint, a ready gRPC connection, ...). When
// the environment variable BIGTABLE_EMULATOR_HOST is set (host:port), the
// Cloud client connects there without authentication instead, as Google's
// tools do; that is how to use the emulator (cbt emulator, or
// cloud.google.com/go/bigtable/bttest in tests).
//
// Open does not contact the server; the first call that does reports an
// unreachable or forbidden instance. The client's built-in metrics export
// is off (see the package Caveats).
func Open(ctx context.Context, project, instance string, opts ...option.ClientOption) (*DB, error) {
	if project == "" || instance == "" {
		return nil, fmt.Errorf("cloud: open: project %q and instance %q must not be empty", project, instance)
	}
	cfg := gbt.ClientConfig{MetricsProvider: gbt.NoopMetricsProvider{}}
	client, err := gbt.NewClientWithConfig(ctx, project, instance, cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("cloud: open %s/%s: data client: %w", project, instance, err)
	}
	admin, err := gbt.NewAdminClient(ctx, project, instance, opts...)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("cloud: open %s/%s: admin client: %w", project, instance, err)
	}
	return &DB{project: project, instance: instance, client: client, admin: admin}, nil
}

// OpenURL is Open for a URL of the form bigtable://PROJECT/INSTANCE[/TABLE]
// (see ParseURL). It returns the table named in the URL, "" if none.
func OpenURL(ctx context.Context, rawURL string, opts ...option.ClientOption) (*DB, string, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, "", err
	}
	db, err := Open(ctx, u.Project, u.Instance, opts...)
	if err != nil {
		return nil, "", err
	}
	return db, u.Table, nil
}

// Close closes both clients, and with them a connection passed with
// option.WithGRPCConn. Tables of the DB must not be used afterwards.
func (db *DB) Close() error {
	err := db.client.Close()
	// NB: with option.WithGRPCConn both clients share one connection and
	// the first Close closes it; the second then reports Canceled.
	if aerr := db.admin.Close(); aerr != nil && status.Code(aerr) != codes.Canceled {
		err = errors.Join(err, aerr)
	}
	if err != nil {
		return fmt.Errorf("cloud: close %v: %w", db, err)
	}
	return nil
}

// String returns the DB's URL, bigtable://PROJECT/INSTANCE.
func (db *DB) String() string { return URL{Project: db.project, Instance: db.instance}.String() }

// Open returns a handle on the named table. It does not check that the
// table exists.
func (db *DB) Open(table string) *Table {
	return &Table{name: table, tbl: db.client.Open(table)}
}

// CreateTable creates an empty table with no column families. It fails with
// an error matching bigtable.ErrExists if the table exists.
func (db *DB) CreateTable(ctx context.Context, table string) error {
	return wrapErr(fmt.Sprintf("create table %q", table), db.admin.CreateTable(ctx, table))
}

// DeleteTable deletes a table and all its cells (bigtable.ErrNotFound if
// there is no such table).
func (db *DB) DeleteTable(ctx context.Context, table string) error {
	return wrapErr(fmt.Sprintf("delete table %q", table), db.admin.DeleteTable(ctx, table))
}

// Tables returns the names of all tables of the instance, sorted.
func (db *DB) Tables(ctx context.Context) ([]string, error) {
	names, err := db.admin.Tables(ctx)
	if err != nil {
		return nil, wrapErr("list tables", err)
	}
	slices.Sort(names)
	return names, nil
}

// CreateColumnFamily declares a family in a table, with no GC policy
// (bigtable.ErrExists if it exists, bigtable.ErrNotFound if the table does
// not).
func (db *DB) CreateColumnFamily(ctx context.Context, table, family string) error {
	return wrapErr(fmt.Sprintf("create family %q in table %q", family, table),
		db.admin.CreateColumnFamily(ctx, table, family))
}

// DeleteColumnFamily removes a family and its cells from a table
// (bigtable.ErrUnknownFamily if there is no such family).
func (db *DB) DeleteColumnFamily(ctx context.Context, table, family string) error {
	return wrapErr(fmt.Sprintf("delete family %q in table %q", family, table),
		db.admin.DeleteColumnFamily(ctx, table, family))
}

// SetGCPolicy sets the garbage-collection policy of a family. Cloud Bigtable
// collects in the background, so reads may return collected cells for a
// while (unlike bigtable's store; see the package Caveats).
func (db *DB) SetGCPolicy(ctx context.Context, table, family string, p bigtable.GCPolicy) error {
	what := fmt.Sprintf("set GC policy of family %q in table %q", family, table)
	s, err := spec.GCPolicyOf(p)
	if err != nil {
		return fmt.Errorf("cloud: %s: %w", what, err)
	}
	gp, err := toGCPolicy(s)
	if err != nil {
		return fmt.Errorf("cloud: %s: %w", what, err)
	}
	return wrapErr(what, db.admin.SetGCPolicy(ctx, table, family, gp))
}

// Families returns the column families of a table and their GC policies,
// like (*bigtable.DB).Families. Cloud Bigtable keeps ages in whole seconds.
func (db *DB) Families(ctx context.Context, table string) (map[string]bigtable.GCPolicy, error) {
	info, err := db.admin.TableInfo(ctx, table)
	if err != nil {
		return nil, wrapErr(fmt.Sprintf("families of table %q", table), err)
	}
	out := make(map[string]bigtable.GCPolicy, len(info.FamilyInfos))
	for _, f := range info.FamilyInfos {
		out[f.Name] = fromGCPolicy(f.FullGCPolicy)
	}
	return out, nil
}
