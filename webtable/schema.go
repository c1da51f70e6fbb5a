package webtable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/webtable/webtable/bigtable"
)

// TableName is the name of the bigtable table that holds the WebTable,
// unless [Options.Table] names another.
const TableName = "webtable"

// Column families of the WebTable.
const (
	FamilyContents = "contents"
	FamilyAnchor   = "anchor"
	FamilyMIME     = "mime"
	FamilyFetch    = "fetch"
)

// Families lists the WebTable's column families in the order they are shown.
var Families = []string{FamilyAnchor, FamilyContents, FamilyFetch, FamilyMIME}

// DefaultVersions is how many contents:html versions a page keeps unless
// [Options.Versions] says otherwise.
const DefaultVersions = 3

// Sentinel errors callers test with errors.Is.
var (
	// ErrNoStore means the store directory does not exist (readers never
	// create one).
	ErrNoStore = errors.New("webtable: no store at that path")
	// ErrNoWebTable means the store exists but holds no WebTable.
	ErrNoWebTable = errors.New("webtable: the store holds no webtable")
	// ErrUnknownFamily means a family name is not one of [Families].
	ErrUnknownFamily = errors.New("webtable: unknown column family")
	// ErrBadColumn means a column name is not "family:qualifier".
	ErrBadColumn = errors.New("webtable: bad column name")
)

// Options configure [Open].
type Options struct {
	// Versions is how many contents:html versions each page keeps (older
	// ones are collected). Zero means DefaultVersions.
	Versions int
	// Store holds options passed to bigtable.Open.
	Store []bigtable.Option
	// Table is the name of the table ("" means TableName).
	Table string
}

// table is the name of the table opts choose.
func (o Options) table() string {
	if o.Table == "" {
		return TableName
	}
	return o.Table
}

// Table is what the WebTable needs of a bigtable table. *bigtable.Table
// implements it; so does the Cloud Bigtable adapter's table
// (bigtable/cloud), since both take package bigtable's own types.
type Table interface {
	Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error
	ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error)
	ReadRow(ctx context.Context, row string, opts ...bigtable.ReadOption) (bigtable.Row, error)
	ReadRows(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error
	// ApplyReadModifyWrite keeps the counters of a sharded crawl.
	ApplyReadModifyWrite(ctx context.Context, row string, m *bigtable.ReadModifyWrite) (bigtable.Row, error)
	SampleRowKeys(ctx context.Context) ([]string, error)
}

// Store is the schema side of a bigtable store that holds a WebTable:
// *bigtable.DB (the embedded store, see [Open]) or the Cloud Bigtable
// adapter (bigtable/cloud), wired by the programs' --db flag.
type Store interface {
	Tables(ctx context.Context) ([]string, error)
	CreateTable(ctx context.Context, table string) error
	CreateColumnFamily(ctx context.Context, table, family string) error
	SetGCPolicy(ctx context.Context, table, family string, p bigtable.GCPolicy) error
	Close() error
}

// tabletLister is a Store that knows its tablets' sizes (the embedded
// store does; Cloud Bigtable reports only boundaries).
type tabletLister interface {
	Tablets(ctx context.Context, table string) ([]bigtable.TabletInfo, error)
}

// WebTable is an open WebTable. Its methods are safe for concurrent use.
type WebTable struct {
	store Store
	tbl   Table
	name  string // the table's name
	seq   *sequencer
}

// New opens the WebTable held by store in the table opts.Table (default
// TableName), whose data-plane handle is tbl.
// With create, the table and its column families are created when absent
// and every family's GC policy is set (what the crawler does); without it
// nothing is created and a store without the table gives ErrNoWebTable
// (what readers do). Closing the WebTable closes store.
func New(ctx context.Context, store Store, tbl Table, create bool, opts Options) (*WebTable, error) {
	var err error
	if create {
		err = ensureSchema(ctx, store, opts)
	} else {
		err = checkSchema(ctx, store, opts.table())
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	return &WebTable{store: store, tbl: tbl, name: opts.table(), seq: newSequencer()}, nil
}

// Open opens the WebTable in the embedded store at dir for reading and
// writing, creating the store, the table and its column families (with
// their GC policies) when absent. It is what the crawler uses.
func Open(ctx context.Context, dir string, opts Options) (*WebTable, error) {
	db, err := bigtable.Open(dir, opts.Store...)
	if err != nil {
		return nil, fmt.Errorf("webtable: opening store %s: %w", dir, err)
	}
	return New(ctx, db, db.Open(opts.table()), true, opts)
}

// OpenExisting opens an existing WebTable in the embedded store at dir
// without creating anything: a missing directory gives ErrNoStore, a store
// without the table ErrNoWebTable. With readOnly the store is opened
// read-only (see bigtable.WithReadOnly for when that is refused).
func OpenExisting(ctx context.Context, dir string, readOnly bool, opts ...bigtable.Option) (*WebTable, error) {
	if _, err := os.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrNoStore, dir)
		}
		return nil, fmt.Errorf("webtable: %w", err)
	}
	if readOnly {
		opts = append(opts, bigtable.WithReadOnly(true))
	}
	db, err := bigtable.Open(dir, opts...)
	if err != nil {
		return nil, fmt.Errorf("webtable: opening store %s: %w", dir, err)
	}
	w, err := New(ctx, db, db.Open(TableName), false, Options{})
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	return w, nil
}

// checkSchema reports ErrNoWebTable when the store has no WebTable.
func checkSchema(ctx context.Context, store Store, table string) error {
	tables, err := store.Tables(ctx)
	if err != nil {
		return fmt.Errorf("webtable: listing tables: %w", err)
	}
	if !slices.Contains(tables, table) {
		return fmt.Errorf("%w: no table %q", ErrNoWebTable, table)
	}
	return nil
}

// ensureSchema creates the table and families that are missing and sets
// every family's GC policy.
func ensureSchema(ctx context.Context, db Store, opts Options) error {
	tables, err := db.Tables(ctx)
	if err != nil {
		return fmt.Errorf("webtable: listing tables: %w", err)
	}
	table := opts.table()
	if !slices.Contains(tables, table) {
		// Another crawler (a shard) may create it at the same moment.
		if err := db.CreateTable(ctx, table); err != nil && !errors.Is(err, bigtable.ErrExists) {
			return fmt.Errorf("webtable: creating table: %w", err)
		}
	}
	versions := opts.Versions
	if versions <= 0 {
		versions = DefaultVersions
	}
	policies := map[string]bigtable.GCPolicy{
		FamilyContents: bigtable.MaxVersionsPolicy(versions),
		FamilyAnchor:   bigtable.MaxVersionsPolicy(1),
		FamilyMIME:     bigtable.MaxVersionsPolicy(1),
		FamilyFetch:    bigtable.MaxVersionsPolicy(1),
	}
	for _, fam := range Families {
		err := db.CreateColumnFamily(ctx, table, fam)
		if err != nil && !errors.Is(err, bigtable.ErrExists) {
			return fmt.Errorf("webtable: creating family %s: %w", fam, err)
		}
		if err := db.SetGCPolicy(ctx, table, fam, policies[fam]); err != nil {
			return fmt.Errorf("webtable: setting GC policy of %s: %w", fam, err)
		}
	}
	return nil
}

// Close closes the store.
func (w *WebTable) Close() error {
	if err := w.store.Close(); err != nil {
		return fmt.Errorf("webtable: closing store: %w", err)
	}
	return nil
}

// checkFamily reports ErrUnknownFamily for a name that is not a WebTable
// family.
func checkFamily(family string) error {
	if !slices.Contains(Families, family) {
		return fmt.Errorf("%w %q (the families are %v)", ErrUnknownFamily, family, Families)
	}
	return nil
}

// OpenForRead opens an existing WebTable for reading, the way the query
// tool does: read-only, never creating anything. Badger cannot open a store
// read-only after a crash left its log unreplayed; then, and only then, the
// store is opened for writing once, which replays the log and changes no
// data, closed, and opened read-only again.
func OpenForRead(ctx context.Context, dir string) (*WebTable, error) {
	w, err := OpenExisting(ctx, dir, true)
	if !errors.Is(err, bigtable.ErrNeedsRecovery) {
		return w, err
	}
	rw, err := OpenExisting(ctx, dir, false)
	if err != nil {
		return nil, fmt.Errorf("webtable: replaying the log of %s: %w", dir, err)
	}
	if err := rw.Close(); err != nil {
		return nil, fmt.Errorf("webtable: replaying the log of %s: %w", dir, err)
	}
	return OpenExisting(ctx, dir, true)
}
