package bigtable

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// validName reports whether s is a valid table or family name:
// [_a-zA-Z0-9][-_.a-zA-Z0-9]*, as Cloud Bigtable requires of families.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case (c == '-' || c == '.') && i > 0:
		default:
			return false
		}
	}
	return true
}

// MaxNameSize is the longest table or family name accepted, in bytes.
const MaxNameSize = 64

func checkName(kind, s string) error {
	if !validName(s) || len(s) > MaxNameSize {
		return fmt.Errorf("%w: %s name %q must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most %d bytes",
			ErrInvalidName, kind, s, MaxNameSize)
	}
	return nil
}

// CreateTable creates an empty table with no column families. It fails with
// ErrExists if the table exists.
func (db *DB) CreateTable(ctx context.Context, table string) error {
	if err := checkName("table", table); err != nil {
		return err
	}
	return db.changeSchema(ctx, table, func(old *tableSchema, txn *badger.Txn) (*tableSchema, error) {
		if old != nil {
			return nil, fmt.Errorf("%w: table %q", ErrExists, table)
		}
		id, err := nextTableID(txn)
		if err != nil {
			return nil, err
		}
		first := newTablet("", "", 0, 0, db.opts.splitSize)
		first.counted.Store(true)
		if err := putTablets(txn, id, first); err != nil {
			return nil, err
		}
		return &tableSchema{name: table, id: id, families: map[string]*familySchema{},
			tablets: newTabletSet([]*tablet{first})}, nil
	})
}

// DeleteTable deletes a table, its schema and all its cells.
func (db *DB) DeleteTable(ctx context.Context, table string) error {
	unlock, err := db.lockSchema(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := db.schema(table)
	if err != nil {
		return err
	}
	defer db.wrote()
	if err := db.startWrite(); err != nil {
		return fmt.Errorf("bigtable: delete table %q: %w", table, err)
	}
	err = db.bdb.Update(func(txn *badger.Txn) error {
		if err := deleteTablets(txn, old.id); err != nil {
			return err
		}
		return txn.Delete(metaTableKey(table))
	})
	err = db.endWrite(err)
	if err != nil {
		return fmt.Errorf("bigtable: delete table %q: %w", table, err)
	}
	db.publish(table, nil)
	// The id is never reused, so cells left behind by a crash here are
	// invisible; DropPrefix reclaims them.
	// NB: DropPrefix writes Badger's pending writes itself: it is a write.
	db.writeMu.RLock()
	err = db.bdb.DropPrefix(appendTablePrefix(nil, old.id))
	db.writeMu.RUnlock()
	if err != nil {
		return fmt.Errorf("bigtable: delete table %q: dropping cells: %w", table, err)
	}
	return nil
}

// Tables returns the names of all tables, sorted.
func (db *DB) Tables(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := db.begin(); err != nil {
		return nil, err
	}
	defer db.opMu.RUnlock()
	return slices.Sorted(maps.Keys(*db.tables.Load())), nil
}

// CreateColumnFamily declares a family in a table, with NoGcPolicy. Writes to
// a family fail until it is declared. It fails with ErrExists if the family
// exists.
func (db *DB) CreateColumnFamily(ctx context.Context, table, family string) error {
	if err := checkName("family", family); err != nil {
		return err
	}
	return db.changeSchema(ctx, table, func(old *tableSchema, _ *badger.Txn) (*tableSchema, error) {
		if old == nil {
			return nil, fmt.Errorf("%w %q", ErrNotFound, table)
		}
		if old.families[family] != nil {
			return nil, fmt.Errorf("%w: family %q in table %q", ErrExists, family, table)
		}
		ts := old.clone()
		ts.families[family] = newFamilySchema(family, noGcPolicy{})
		return ts, nil
	})
}

// DeleteColumnFamily removes a family from a table's schema and deletes its
// cells in every row.
func (db *DB) DeleteColumnFamily(ctx context.Context, table, family string) error {
	var id uint32
	var tablets *tableSchema
	err := db.changeSchema(ctx, table, func(old *tableSchema, _ *badger.Txn) (*tableSchema, error) {
		if old == nil {
			return nil, fmt.Errorf("%w %q", ErrNotFound, table)
		}
		if old.families[family] == nil {
			return nil, fmt.Errorf("%w %q in table %q", ErrUnknownFamily, family, table)
		}
		id, tablets = old.id, old
		ts := old.clone()
		delete(ts.families, family)
		return ts, nil
	})
	if err != nil {
		return err
	}
	// Reads ignore families missing from the schema, so the cells are
	// already invisible; now reclaim them.
	if err := db.beginWrite(); err != nil {
		return err
	}
	defer db.opMu.RUnlock()
	defer staleTablets(tablets)
	return db.deleteFamilyCells(ctx, id, family)
}

// SetGCPolicy sets the garbage-collection policy of a family. Reads stop
// returning the cells it collects at once; they leave the disk on the next
// write to their column or the next GC. Cells the old policy collected stay
// collected: SetGCPolicy first removes them from disk, which takes a scan
// of the table.
func (db *DB) SetGCPolicy(ctx context.Context, table, family string, p GCPolicy) error {
	if err := validatePolicy(p); err != nil {
		return err
	}
	// NB: without this sweep, cells the old policy hides but that are still
	// on disk would reappear under a more lenient policy.
	if err := db.sweepFamily(ctx, table, family); err != nil {
		return err
	}
	defer db.policyEpoch.Add(1)
	return db.changeSchema(ctx, table, func(old *tableSchema, _ *badger.Txn) (*tableSchema, error) {
		if old == nil {
			return nil, fmt.Errorf("%w %q", ErrNotFound, table)
		}
		if old.families[family] == nil {
			return nil, fmt.Errorf("%w %q in table %q", ErrUnknownFamily, family, table)
		}
		ts := old.clone()
		ts.families[family] = newFamilySchema(family, p)
		return ts, nil
	})
}

// Families returns the column families of a table and their GC policies.
func (db *DB) Families(ctx context.Context, table string) (map[string]GCPolicy, error) {
	ts, err := db.enter(ctx, table, false)
	if err != nil {
		return nil, err
	}
	defer db.opMu.RUnlock()
	out := make(map[string]GCPolicy, len(ts.families))
	for name, f := range ts.families {
		out[name] = f.policy
	}
	return out, nil
}

// lockSchema starts a call that changes a schema: it checks ctx, holds
// the store open for writing (beginWrite) and takes schemaMu; unlock
// undoes both.
func (db *DB) lockSchema(ctx context.Context) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := db.beginWrite(); err != nil {
		return nil, err
	}
	db.schemaMu.Lock()
	return func() {
		db.schemaMu.Unlock()
		db.opMu.RUnlock()
	}, nil
}

// changeSchema applies change to a table's schema in one Badger transaction
// and publishes the result. change gets nil for a missing table and returns
// the new schema.
func (db *DB) changeSchema(ctx context.Context, table string, change func(old *tableSchema, txn *badger.Txn) (*tableSchema, error)) error {
	unlock, err := db.lockSchema(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	old := (*db.tables.Load())[table]
	var next *tableSchema
	defer db.wrote()
	if err := db.startWrite(); err != nil {
		return err
	}
	err = db.bdb.Update(func(txn *badger.Txn) error {
		var err error
		next, err = change(old, txn)
		if err != nil {
			return err
		}
		return txn.Set(metaTableKey(table), encodeSchema(next))
	})
	err = db.endWrite(err)
	if err != nil {
		return err
	}
	db.publish(table, next)
	return nil
}

// publish replaces the cached schema of a table (nil removes it). The
// caller holds schemaMu.
func (db *DB) publish(table string, ts *tableSchema) {
	m := maps.Clone(*db.tables.Load())
	if ts == nil {
		delete(m, table)
	} else {
		m[table] = ts
	}
	db.tables.Store(&m)
}

func (ts *tableSchema) clone() *tableSchema {
	return &tableSchema{name: ts.name, id: ts.id, families: maps.Clone(ts.families), tablets: ts.tablets}
}

// family returns the schema of a family, or an ErrUnknownFamily error.
func (ts *tableSchema) family(name string) (*familySchema, error) {
	f := ts.families[name]
	if f == nil {
		return nil, fmt.Errorf("%w %q in table %q", ErrUnknownFamily, name, ts.name)
	}
	return f, nil
}
