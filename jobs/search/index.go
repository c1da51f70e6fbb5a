package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DirName is the index's directory inside a directory store, where
// cmd/index and cmd/query look for it without --index.
const DirName = "search"

// formKey is the internal record naming the index's form.
var formKey = []byte("form")

// ShardDir is the directory of shard i of n inside dir.
func ShardDir(dir string, i, n int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d", i, n))
}

// Shard is one shard's index, open for writing.
type Shard struct {
	idx  bleve.Index
	rows *bolt.DB
	// Fresh is true when the index was created by this open (it did not
	// exist, or was rebuilt): it holds nothing yet.
	Fresh bool
	// written counts the documents indexed or deleted since the open.
	written atomic.Int64
}

// ErrOtherForm means an index was written by another version of the
// search job (or is damaged): it must be rebuilt (index search does).
var ErrOtherForm = errors.New("search: the index is damaged or was built by another version")

// OpenShard opens or creates the index of shard i of n in dir. An index
// that cannot be opened or is of another [Form] is removed and created
// anew, with a line to logf saying why.
func OpenShard(dir string, i, n int, logf func(format string, args ...any)) (*Shard, error) {
	path := ShardDir(dir, i, n)
	if _, err := os.Stat(path); err == nil {
		idx, rows, err := openChecked(path, false)
		if err == nil {
			return &Shard{idx: idx, rows: rows}, nil
		}
		if errors.Is(err, ErrBusy) {
			return nil, err
		}
		logf("%v: rebuilding it", err)
		if err := os.RemoveAll(path); err != nil {
			return nil, fmt.Errorf("search: removing %s: %w", path, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	idx, err := bleve.NewUsing(path, NewMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, map[string]any{"bolt_timeout": LockWait.String()})
	if err != nil {
		return nil, fmt.Errorf("search: creating %s: %w", path, err)
	}
	if err := idx.SetInternal(formKey, []byte(Form)); err != nil {
		idx.Close()
		return nil, fmt.Errorf("search: %s: %w", path, err)
	}
	rows, err := openRows(path, false, true)
	if err != nil {
		idx.Close()
		return nil, err
	}
	return &Shard{idx: idx, rows: rows, Fresh: true}, nil
}

// LockWait is how long opening an index waits for another process that
// holds it (a reader waits for the writer, the writer for readers).
var LockWait = 10 * time.Second

// ErrBusy means another process held the index for longer than LockWait.
var ErrBusy = errors.New("search: the index is in use by another process")

// openChecked opens the index at path and checks its form.
func openChecked(path string, readOnly bool) (idx bleve.Index, rows *bolt.DB, err error) {
	idx, err = openIndex(path, readOnly)
	if err != nil {
		return nil, nil, err
	}
	rows, err = openRows(path, readOnly, false)
	if err != nil {
		idx.Close()
		return nil, nil, err
	}
	return idx, rows, nil
}

// openIndex opens the bleve index at path and checks its form.
func openIndex(path string, readOnly bool) (idx bleve.Index, err error) {
	defer func() {
		// NB: bleve can panic on a damaged segment file; that is a
		// damaged index, not a crash of the program.
		if r := recover(); r != nil {
			idx, err = nil, fmt.Errorf("%w (%s: %v)", ErrOtherForm, path, r)
		}
	}()
	idx, err = bleve.OpenUsing(path, map[string]any{"read_only": readOnly, "bolt_timeout": LockWait.String()})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (%s, waited %s)", ErrBusy, path, LockWait)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%s: %v)", ErrOtherForm, path, err)
	}
	form, err := idx.GetInternal(formKey)
	if err != nil || string(form) != Form {
		idx.Close()
		if err != nil {
			return nil, fmt.Errorf("%w (%s: %v)", ErrOtherForm, path, err)
		}
		return nil, fmt.Errorf("%w (%s: form %q, this program reads %q)", ErrOtherForm, path, form, Form)
	}
	if _, err := idx.DocCount(); err != nil {
		idx.Close()
		return nil, fmt.Errorf("%w (%s: %v)", ErrOtherForm, path, err)
	}
	return idx, nil
}

// Close closes the shard's index, first merging it into one segment when
// this open wrote at least CompactShare of its documents (see compact).
func (s *Shard) Close() error {
	var err error
	if n := s.written.Load(); n > 0 {
		docs, derr := s.idx.DocCount()
		if derr == nil && float64(n) >= CompactShare*float64(docs) {
			err = compact(context.Background(), s)
		}
	}
	return errors.Join(err, s.idx.Close(), s.rows.Close())
}

// shardDirs lists the shard directories in dir, in name order.
func shardDirs(dir string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "shard-*-of-*"))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var out []string
	for _, m := range matches {
		var i, n int
		if _, err := fmt.Sscanf(filepath.Base(m), "shard-%d-of-%d", &i, &n); err == nil && filepath.Base(m) == "shard-"+strconv.Itoa(i)+"-of-"+strconv.Itoa(n) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}
