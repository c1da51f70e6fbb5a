package webtable

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
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

// Options configure [New] (and internal/stores, which opens a store by name).
type Options struct {
	// Versions is how many contents:html versions each page keeps (older
	// ones are collected). Zero means DefaultVersions.
	Versions int
	// Store holds options passed to bigtable.Open (by internal/stores).
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
// *bigtable.DB (the embedded store) or the Cloud Bigtable
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
	group saveGroup   // the saves waiting for a bulk write (see group.go)
	shard shardAtomic // the shard crawled, for the inboxes (inbox.go); nil: none

	queued crawlstore.QueueSignal // told of entries queued through it (queued.go)
}

// New opens the WebTable held by store in the table opts.Table (default
// TableName), whose data-plane handle is tbl. It is the only way to open
// a WebTable; internal/stores opens the store a directory or a
// bigtable:// URL names and calls it.
// With create, the table and its column families are created when absent
// and every family's GC policy is set (what the crawler does); without it
// nothing is created and a store without the table gives ErrNoWebTable
// (what readers do). Closing the WebTable closes store.
//
// A store whose [FormatVersion] is newer than [FormatNewest] is refused
// with a [*FormatError] before anything is written; so, without create, is
// one older than [FormatOldestReadable]. A table created here is in
// FormatNewest; an older one is migrated by [WebTable.Migrate].
func New(ctx context.Context, store Store, tbl Table, create bool, opts Options) (*WebTable, error) {
	var err error
	if create {
		err = ensureSchema(ctx, store, tbl, opts)
	} else if err = checkSchema(ctx, store, opts.table()); err == nil {
		_, err = checkFormat(ctx, tbl, true)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	return &WebTable{store: store, tbl: tbl, name: opts.table(), seq: newSequencer()}, nil
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
// every family's GC policy. An existing table's format version is checked
// first (one too new is refused before anything is written); a table
// created here is given FormatNewest.
func ensureSchema(ctx context.Context, db Store, tbl Table, opts Options) error {
	tables, err := db.Tables(ctx)
	if err != nil {
		return fmt.Errorf("webtable: listing tables: %w", err)
	}
	table := opts.table()
	created := false
	if slices.Contains(tables, table) {
		if _, err := checkFormat(ctx, tbl, false); err != nil {
			return err
		}
	} else {
		// Another crawler (a shard) may create it at the same moment.
		err := db.CreateTable(ctx, table)
		if err != nil && !errors.Is(err, bigtable.ErrExists) {
			return fmt.Errorf("webtable: creating table: %w", err)
		}
		created = err == nil
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
	have, err := listFamilies(ctx, db, table)
	if err != nil {
		return err
	}
	for _, fam := range Families {
		if err := ensureFamily(ctx, db, table, have, fam, policies[fam]); err != nil {
			return err
		}
	}
	if created {
		return writeFormat(ctx, tbl, FormatNewest)
	}
	return nil
}

// Close writes the frontier deletes of saved pages that wait for the next
// group write (see Save), then closes the store.
func (w *WebTable) Close() error {
	if err := w.flushCarry(context.Background()); err != nil {
		w.store.Close()
		return err
	}
	if err := w.store.Close(); err != nil {
		return fmt.Errorf("webtable: closing store: %w", err)
	}
	return nil
}

// checkFamily reports ErrUnknownFamily for a name that is not a WebTable
// family.
func checkFamily(family string) error {
	if !slices.Contains(Families, family) && !IsDerived(family) && !slices.Contains(OptionalFamilies, family) {
		return fmt.Errorf("%w %q (the families are %v, and the derived %v)", ErrUnknownFamily, family, Families, DerivedFamilies)
	}
	return nil
}
