package webtable

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// FamilyInfo is a column family of the WebTable and its garbage-collection
// policy, the rule that says which old versions are dropped.
type FamilyInfo struct {
	Name string
	// GCPolicy is the policy in Cloud Bigtable's notation ("versions() > 3":
	// keep the newest 3 versions); "" when the store does not report it.
	GCPolicy string
}

// familyLister is a Store that reports its families' GC policies (both
// the embedded store and the Cloud Bigtable adapter do).
type familyLister interface {
	Families(ctx context.Context, table string) (map[string]bigtable.GCPolicy, error)
}

// Table is the name of the bigtable table that holds the WebTable.
func (w *WebTable) Table() string { return w.name }

// Schema lists the tables of the store, sorted, and the WebTable's column
// families with their GC policies, in the order of [Families], then the
// derived families the store holds ([DerivedFamilies]).
func (w *WebTable) Schema(ctx context.Context) (tables []string, families []FamilyInfo, err error) {
	tables, err = w.store.Tables(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("webtable: listing tables: %w", err)
	}
	slices.Sort(tables)
	var policies map[string]bigtable.GCPolicy
	if l, ok := w.store.(familyLister); ok {
		policies, err = l.Families(ctx, w.name)
		if err != nil {
			return nil, nil, fmt.Errorf("webtable: listing the families of %q: %w", w.name, err)
		}
	}
	for _, f := range Families {
		fi := FamilyInfo{Name: f}
		if p, ok := policies[f]; ok && p != nil {
			fi.GCPolicy = p.String()
		}
		families = append(families, fi)
	}
	// The optional and derived families, once a crawl or cmd/index
	// created them.
	for _, f := range append(OptionalFamilies[:len(OptionalFamilies):len(OptionalFamilies)], DerivedFamilies...) {
		if p, ok := policies[f]; ok {
			fi := FamilyInfo{Name: f}
			if p != nil {
				fi.GCPolicy = p.String()
			}
			families = append(families, fi)
		}
	}
	return tables, families, nil
}

// FetchOf reads the fetch record (the fetch family) of a row that [WebTable.Get]
// or [WebTable.Scan] returned; cells of other families are ignored, and so
// are older versions. A row without fetch cells gives a zero Fetch.
func FetchOf(r Row) (crawlstore.Fetch, error) {
	var items []bigtable.ReadItem
	for _, c := range r.Cells {
		if c.Family != FamilyFetch {
			continue
		}
		col := c.Column()
		if n := len(items); n > 0 && items[n-1].Column == col {
			continue // an older version
		}
		items = append(items, bigtable.ReadItem{Row: r.Key, Column: col, Timestamp: c.Timestamp, Value: c.Value})
	}
	return parseFetch(bigtable.Row{FamilyFetch: items})
}

// FetchTimes calls fn with the time of the last fetch of every row in
// ranges (the whole table when empty) that was fetched, in key order, until
// fn returns false. It reads only the time of each row's fetch record
// (fetch:record).
func (w *WebTable) FetchTimes(ctx context.Context, ranges []urlkey.Range, fn func(row string, t time.Time) bool) error {
	return w.eachFetch(ctx, ranges, "reading fetch times", fetchRecordFilter(false), func(row string, f crawlstore.Fetch) bool {
		return f.Time.IsZero() || fn(row, f.Time)
	})
}

// eachFetch calls fn, in key order, with the fetch of every row in ranges
// (the whole table when empty) as filter leaves it, until fn returns
// false. A fetch that cannot be read ends the scan with its error; what
// names the scan in the store's errors.
func (w *WebTable) eachFetch(ctx context.Context, ranges []urlkey.Range, what string, filter bigtable.Filter, fn func(row string, f crawlstore.Fetch) bool) error {
	var ferr error
	err := w.tbl.ReadRows(ctx, rowSet(ranges), func(r bigtable.Row) bool {
		f, err := parseFetch(r)
		if err != nil {
			ferr = err
			return false
		}
		return fn(r.Key(), f)
	}, bigtable.RowFilter(filter))
	if err != nil {
		return fmt.Errorf("webtable: %s: %w", what, err)
	}
	return ferr
}
