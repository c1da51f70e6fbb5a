package search

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// rowsFile holds, beside a shard's bleve index, one record per row: the
// digest of its documents and their timestamps ("d" + key), and its rank
// and representative ("m" + key).
//
// NB: not bleve's internal records: scorch writes all of them again with
// every batch it persists, so at 100,000 rows its root.bolt had grown to
// 2.4 GB and each batch took seconds. bbolt writes only the pages a
// transaction changes.
const rowsFile = "rows.bolt"

var rowsBucket = []byte("rows")

// openRows opens the row records of the shard at path.
func openRows(path string, readOnly, create bool) (*bolt.DB, error) {
	file := filepath.Join(path, rowsFile)
	if !create {
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("%w (%s: %v)", ErrOtherForm, path, err)
		}
	}
	db, err := bolt.Open(file, 0o644, &bolt.Options{Timeout: LockWait, ReadOnly: readOnly})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("%w (%s, waited %s)", ErrBusy, file, LockWait)
		}
		return nil, fmt.Errorf("%w (%s: %v)", ErrOtherForm, file, err)
	}
	// NB: bbolt grows a file smaller than AllocSize to its next power of
	// two (the 5,000 rows of BenchmarkSearch took 1 MB, twice their
	// records); past AllocSize, by what it needs and AllocSize.
	db.AllocSize = 256 << 10
	if !readOnly {
		if err := db.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists(rowsBucket)
			return err
		}); err != nil {
			db.Close()
			return nil, fmt.Errorf("search: %s: %w", file, err)
		}
	}
	return db, nil
}

// getRow reads one record; nil when absent.
func getRow(db *bolt.DB, key string) ([]byte, error) {
	var out []byte
	err := db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(rowsBucket)
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(key)); v != nil {
			out = append([]byte(nil), v...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: reading the row records: %w", err)
	}
	return out, nil
}

// putRows writes records (a nil value deletes) in one transaction.
func putRows(db *bolt.DB, recs map[string][]byte) error {
	if len(recs) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(recs))
	err := db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(rowsBucket)
		// NB: a scan writes rows in key order, so pages filled almost
		// to the brim stay full (bbolt splits them at half by default).
		b.FillPercent = 0.95
		for _, k := range keys {
			v := recs[k]
			var err error
			if v == nil {
				err = b.Delete([]byte(k))
			} else {
				err = b.Put([]byte(k), v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("search: writing the row records: %w", err)
	}
	return nil
}
