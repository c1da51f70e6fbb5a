package webtable

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/internal/keyspace"
	"github.com/webtable/webtable/urlkey"
)

// MaxKeyLen is the longest row key, in bytes: 4096, as [urlkey.MaxKeyLen]
// and the store's limit.
const MaxKeyLen = keyspace.MaxKeyLen

// RowKey turns a command-line argument into a row key: an argument holding
// "://" is a URL and goes through urlkey.Key; anything else is taken as a
// row key as it is.
//
//	http://www.cnn.com/index.html -> com.cnn.www/index.html
//	com.cnn.www/                  -> com.cnn.www/
func RowKey(arg string) (string, error) {
	if strings.Contains(arg, "://") {
		k, err := urlkey.Key(arg)
		if err != nil {
			return "", fmt.Errorf("webtable: %w", err)
		}
		return k, nil
	}
	if arg == "" || len(arg) > MaxKeyLen {
		return "", fmt.Errorf("webtable: a row key has 1 to %d bytes, not %d", MaxKeyLen, len(arg))
	}
	return arg, nil
}

// Cell is one version of one column of a row.
type Cell struct {
	Family    string
	Qualifier string
	Timestamp bigtable.Timestamp // microseconds since the Unix epoch
	Value     []byte             // nil when only keys were asked for
}

// Column is the cell's column name, "family:qualifier".
func (c Cell) Column() string { return c.Family + ":" + c.Qualifier }

// Row is a row of the WebTable: its key and its cells ordered by family,
// then qualifier, then newest first.
type Row struct {
	Key   string
	Cells []Cell
}

// Query restricts which cells of a row are read.
type Query struct {
	// Family keeps only that family ("" = all).
	Family string
	// Column keeps only that column, "family:qualifier" ("" = all).
	Column string
	// Versions is how many versions of each column to keep, newest first;
	// 0 means 1, a negative number all of them.
	Versions int
	// At shows the row as it was then: per column, the newest version at or
	// before At (microseconds; 0 = now).
	At bigtable.Timestamp
	// KeysOnly reads row keys only, never values (Scan).
	KeysOnly bool
	// SkipAnchors leaves out the anchor family, which may hold a cell per
	// page linking to the row (millions); read it a page at a time with
	// [WebTable.Anchors].
	SkipAnchors bool
}

// filter builds the bigtable filter of q.
func (q Query) filter() (bigtable.Filter, error) {
	var fs []bigtable.Filter
	family := q.Family
	if q.Column != "" {
		fam, qual, ok := strings.Cut(q.Column, ":")
		if !ok {
			return nil, fmt.Errorf("%w: column %q is not family:qualifier (e.g. contents:html)", ErrBadColumn, q.Column)
		}
		if family != "" && family != fam {
			return nil, fmt.Errorf("%w: column %q is not in family %q", ErrBadColumn, q.Column, family)
		}
		family = fam
		fs = append(fs, bigtable.FamilyFilter(regexp.QuoteMeta(fam)), bigtable.ColumnFilter(regexp.QuoteMeta(qual)))
	} else if family != "" {
		fs = append(fs, bigtable.FamilyFilter(regexp.QuoteMeta(family)))
	}
	if family != "" {
		if err := checkFamily(family); err != nil {
			return nil, err
		}
	}
	if err := checkTimestamp(q.At); err != nil {
		return nil, err
	}
	if q.SkipAnchors {
		fs = append(fs, bigtable.FamilyFilter(notFamily(FamilyAnchor)))
	}
	if q.At > 0 {
		// Every timestamp the WebTable writes is a whole millisecond, so
		// "at or before At" is "before the next millisecond": an end that
		// Cloud Bigtable, which truncates to milliseconds, reads the same.
		end := q.At - q.At%1000 + 1000
		fs = append(fs, bigtable.TimestampRangeFilterMicros(0, end))
	}
	switch {
	case q.KeysOnly:
		fs = append(fs, bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())
	case q.Versions >= 0:
		fs = append(fs, bigtable.LatestNFilter(max(q.Versions, 1)))
	}
	switch len(fs) {
	case 0:
		return bigtable.PassAllFilter(), nil
	case 1:
		return fs[0], nil // a chain needs two (Cloud Bigtable's rule)
	}
	return bigtable.ChainFilters(fs...), nil
}

// toRow turns a bigtable row into a Row, cells ordered by family, then
// qualifier, then newest first (bigtable orders within a family already).
func toRow(r bigtable.Row, keysOnly bool) Row {
	out := Row{Key: r.Key()}
	fams := make([]string, 0, len(r))
	for f := range r {
		fams = append(fams, f)
	}
	slices.Sort(fams)
	for _, f := range fams {
		for _, it := range r[f] {
			c := Cell{Family: f, Qualifier: qualifier(it.Column), Timestamp: it.Timestamp}
			if !keysOnly {
				c.Value = it.Value
			}
			out.Cells = append(out.Cells, c)
		}
	}
	return out
}

// Get reads one row. A row that does not exist, or has no cell that q
// keeps, is a Row with no cells and no error.
func (w *WebTable) Get(ctx context.Context, key string, q Query) (Row, error) {
	f, err := q.filter()
	if err != nil {
		return Row{}, err
	}
	r, err := w.tbl.ReadRow(ctx, key, bigtable.RowFilter(f))
	if err != nil {
		return Row{}, fmt.Errorf("webtable: reading row %q: %w", key, err)
	}
	row := toRow(r, false)
	row.Key = key
	return row, nil
}

// Version is one stored contents:html version of a page.
type Version struct {
	Row       string
	Timestamp bigtable.Timestamp
	Size      int
	SHA256    string
	Status    int
}

// Versions lists every stored contents:html version of the page at key,
// newest first, with its size, hash and HTTP status.
func (w *WebTable) Versions(ctx context.Context, key string) ([]Version, error) {
	r, err := w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.FamilyFilter(FamilyContents)))
	if err != nil {
		return nil, fmt.Errorf("webtable: reading versions of %q: %w", key, err)
	}
	facts := map[bigtable.Timestamp]*Version{}
	var out []Version
	for _, it := range r[FamilyContents] {
		if qualifier(it.Column) == "html" {
			out = append(out, Version{Row: key, Timestamp: it.Timestamp, Size: len(it.Value)})
		}
	}
	for i := range out {
		facts[out[i].Timestamp] = &out[i]
	}
	for _, it := range r[FamilyContents] {
		v := facts[it.Timestamp]
		if v == nil {
			continue
		}
		switch qualifier(it.Column) {
		case "sha256":
			v.SHA256 = string(it.Value)
		case colMeta:
			mc, err := decodeMeta(it.Value)
			if err != nil {
				return nil, fmt.Errorf("webtable: row %q contents:meta holds %q: %w", key, it.Value, err)
			}
			v.Status, _ = strconv.Atoi(string(mc.get(colStatus)))
		}
	}
	slices.SortFunc(out, func(a, b Version) int { return cmp.Compare(b.Timestamp, a.Timestamp) })
	return out, nil
}

// rowSet turns key ranges into a bigtable row set; no ranges means every
// page row (the reserved rows of the frontier left out, see PageRange).
func rowSet(ranges []urlkey.Range) bigtable.RowSet {
	if len(ranges) == 0 {
		return PageRange()
	}
	list := make(bigtable.RowRangeList, len(ranges))
	for i, r := range ranges {
		list[i] = bigtable.NewRange(r.Start, r.End)
	}
	return list
}

// errStopScan ends scanRows early, without an error.
var errStopScan = errors.New("webtable: scan stopped")

// scanRows calls fn with every row of rs that filter keeps, in key order,
// until fn returns an error: errStopScan ends the scan with nil, any
// other is returned as it is. An error of the store is wrapped with what,
// which names the scan.
func (w *WebTable) scanRows(ctx context.Context, rs bigtable.RowSet, filter bigtable.Filter, what string, fn func(bigtable.Row) error) error {
	var ferr error
	err := w.tbl.ReadRows(ctx, rs, func(r bigtable.Row) bool {
		ferr = fn(r)
		return ferr == nil
	}, bigtable.RowFilter(filter))
	if err != nil {
		return fmt.Errorf("webtable: %s: %w", what, err)
	}
	if errors.Is(ferr, errStopScan) {
		return nil
	}
	return ferr
}

// Scan calls fn with every row in ranges (all rows when ranges is empty),
// in key order, until fn returns false or limit rows (0 = no limit) were
// passed. Rows with no cell that q keeps are skipped. It streams: memory
// does not grow with the number of rows.
func (w *WebTable) Scan(ctx context.Context, ranges []urlkey.Range, q Query, limit int64, fn func(Row) bool) error {
	f, err := q.filter()
	if err != nil {
		return err
	}
	opts := []bigtable.ReadOption{bigtable.RowFilter(f)}
	if limit > 0 {
		opts = append(opts, bigtable.LimitRows(limit))
	}
	err = w.tbl.ReadRows(ctx, rowSet(ranges), func(r bigtable.Row) bool {
		return fn(toRow(r, q.KeysOnly))
	}, opts...)
	if err != nil {
		return fmt.Errorf("webtable: scanning: %w", err)
	}
	return nil
}

// Page reads the row of the page at rawURL as it was at time at (0 = now):
// the newest version of each column at or before at.
func (w *WebTable) Page(ctx context.Context, rawURL string, at bigtable.Timestamp) (Row, error) {
	key, err := urlkey.Key(rawURL)
	if err != nil {
		return Row{}, fmt.Errorf("webtable: %w", err)
	}
	return w.Get(ctx, key, Query{At: at})
}

// ScanDomain calls fn with every row of a domain, its subdomains and their
// ports (urlkey.DomainRanges), in key order, until fn returns false.
func (w *WebTable) ScanDomain(ctx context.Context, domain string, q Query, fn func(Row) bool) error {
	ranges := urlkey.DomainRanges(domain)
	if len(ranges) == 0 {
		return fmt.Errorf("webtable: %q is not a domain name", domain)
	}
	return w.Scan(ctx, ranges, q, 0, fn)
}

// column keeps one column: a column range rather than family and qualifier
// patterns, so nothing is compiled (the qualifier needs no escaping).
func column(family, qualifier string) bigtable.Filter {
	return bigtable.ColumnRangeFilter(family, qualifier, qualifier+"\x00")
}
