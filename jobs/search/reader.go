package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"
)

// ErrNoIndex means there is no search index where one was looked for.
var ErrNoIndex = errors.New("search: no search index")

// Reader reads the shards of an index together (bleve's index alias).
type Reader struct {
	dir    string
	alias  bleve.IndexAlias
	shards map[string]bleve.Index // by index name, as hits name them
	rows   map[string]*bolt.DB    // the shards' row records, by index name
}

// OpenReader opens every shard index in dir for searching. It fails with
// ErrNoIndex when dir holds none, and with ErrOtherForm when one is
// damaged or of another form (run index search to rebuild it).
func OpenReader(dir string) (*Reader, error) {
	paths, err := shardDirs(dir)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w in %s (build one with: index search)", ErrNoIndex, dir)
	}
	r := &Reader{dir: dir, shards: map[string]bleve.Index{}, rows: map[string]*bolt.DB{}}
	var list []bleve.Index
	for _, p := range paths {
		idx, rows, err := openChecked(p, true)
		if errors.Is(err, ErrBusy) {
			r.closeAll(list)
			return nil, err
		}
		if err != nil {
			r.closeAll(list)
			return nil, fmt.Errorf("%w: run index search to rebuild it", err)
		}
		list = append(list, idx)
		r.shards[idx.Name()], r.rows[idx.Name()] = idx, rows
	}
	r.alias = bleve.NewIndexAlias(list...)
	return r, nil
}

func (r *Reader) closeAll(list []bleve.Index) {
	for _, idx := range list {
		idx.Close()
		if rows := r.rows[idx.Name()]; rows != nil {
			rows.Close()
		}
	}
}

// Docs is how many documents (page versions) the shards hold, together;
// a version indexed by two shards (after the plan moved) counts twice.
func (r *Reader) Docs() (uint64, error) {
	n, err := r.alias.DocCount()
	if err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	return n, nil
}

// Close closes the shards.
func (r *Reader) Close() error {
	var first error
	for name, idx := range r.shards {
		if err := errors.Join(idx.Close(), r.rows[name].Close()); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// meta reads the rank and representative a shard holds for key.
func (r *Reader) meta(index, key string) (rank float64, of string) {
	rows := r.rows[index]
	if rows == nil {
		return 0, ""
	}
	v, err := getRow(rows, metaPrefix+key)
	if err != nil || v == nil {
		return 0, ""
	}
	rs, of, _ := strings.Cut(string(v), " ")
	rank, err = strconv.ParseFloat(rs, 64)
	if err != nil {
		rank = 0
	}
	return rank, of
}

// Listing is one line per document ("key ts"), sorted, of every shard:
// what a test compares between two builds of an index.
func (r *Reader) Listing() (string, error) {
	n, err := r.alias.DocCount()
	if err != nil {
		return "", fmt.Errorf("search: %w", err)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), int(n)+1, 0, false)
	req.SortBy([]string{"_id"})
	res, err := r.alias.Search(req)
	if err != nil {
		return "", fmt.Errorf("search: %w", err)
	}
	var b strings.Builder
	for _, h := range res.Hits {
		b.WriteString(h.ID)
		b.WriteByte('\n')
	}
	return b.String(), nil
}
