package bigtable

// Table is a handle on one table of a DB, from (*DB).Open. It is cheap,
// safe for concurrent use, and holds no state: a missing table is reported
// by the calls that use it (ErrNotFound).
type Table struct {
	db   *DB
	name string
}

// Open returns a handle on the named table. It does not check that the
// table exists.
func (db *DB) Open(table string) *Table { return &Table{db: db, name: table} }

// Name returns the table's name.
func (t *Table) Name() string { return t.name }
