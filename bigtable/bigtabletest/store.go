package bigtabletest

import (
	"context"

	"github.com/webtable/webtable/bigtable"
)

// Table is the data plane of a store, as *bigtable.Table and
// *cloud.Table have it.
type Table interface {
	Name() string
	Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error
	ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error)
	ReadRow(ctx context.Context, row string, opts ...bigtable.ReadOption) (bigtable.Row, error)
	ReadRows(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error
	ReadRowsParallel(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error
	ApplyReadModifyWrite(ctx context.Context, row string, m *bigtable.ReadModifyWrite) (bigtable.Row, error)
	SampleRowKeys(ctx context.Context) ([]string, error)
}

// Schema is the schema side of a store, as *bigtable.DB and *cloud.DB
// have it.
type Schema interface {
	CreateTable(ctx context.Context, table string) error
	DeleteTable(ctx context.Context, table string) error
	Tables(ctx context.Context) ([]string, error)
	CreateColumnFamily(ctx context.Context, table, family string) error
	DeleteColumnFamily(ctx context.Context, table, family string) error
	SetGCPolicy(ctx context.Context, table, family string, p bigtable.GCPolicy) error
	Families(ctx context.Context, table string) (map[string]bigtable.GCPolicy, error)
}

// Store is a whole store: its schema calls and a way to reach a table.
type Store interface {
	Schema
	// Table returns a handle on the named table, without checking that it
	// exists (like (*bigtable.DB).Open).
	Table(name string) Table
}

// Adapt makes a Store of a DB whose Open method returns its own table type,
// for example Adapt(db, db.Open) for a *bigtable.DB or a *cloud.DB.
func Adapt[T Table](db Schema, open func(table string) T) Store {
	return adapted[T]{db, open}
}

type adapted[T Table] struct {
	Schema
	open func(string) T
}

func (a adapted[T]) Table(name string) Table { return a.open(name) }
