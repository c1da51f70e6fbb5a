package webtable

import (
	"fmt"
	"strconv"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// The old forms that [WebTable.Migrate] rewrites, and their decoders: only
// the migration reads them (readers read the forms of FormatNewest).

// The qualifiers of the fetch family before FormatFetchRecord: one column
// per field, named as the record's JSON fields (contents:status and
// contents:truncated share colStatus and colTruncated, see archive.go).
// A frontier entry before FormatEntryCell was colURL, colDepth and
// colChain.
const (
	colURL          = "url"
	colTime         = "time"
	colLength       = "length"
	colCharset      = "charset"
	colETag         = "etag"
	colLastModified = "last_modified"
	colRedirect     = "redirect"
	colError        = "error"
	colDepth        = "depth"
	colLinks        = "links"
	colLinksKept    = "links_kept"
	colChain        = "chain"
)

// oldFetchColumns are the qualifiers of the fetch family before
// FormatFetchRecord.
var oldFetchColumns = [...]string{colURL, colStatus, colTime, colLength, colCharset, colETag, colLastModified, colRedirect, colError, colTruncated, colDepth, colLinks, colLinksKept}

// oldEntryColumns are the cells of a frontier entry before FormatEntryCell.
var oldEntryColumns = [...]string{colURL, colDepth, colChain}

// oldContentsColumns are the contents cells before FormatContentsMeta that
// contents:meta packs.
var oldContentsColumns = [...]string{colStatus, colFetched, colHeaders, colTruncated}

// parseOldFetch reads a row's fetch family (its newest cells) in the form
// before FormatFetchRecord: a column per field, and fetch:state. A value
// that does not parse is reported with the row and column.
func parseOldFetch(row bigtable.Row) (crawlstore.Fetch, error) {
	var f crawlstore.Fetch
	for _, it := range row[FamilyFetch] {
		v := string(it.Value)
		var err error
		switch qualifier(it.Column) {
		case colState:
			f.State = crawlstore.ParseState(v)
		case colURL:
			f.URL = v
		case colStatus:
			f.Status, err = strconv.Atoi(v)
		case colTime:
			if v != "" {
				f.Time, err = time.Parse(time.RFC3339Nano, v)
			}
		case colLength:
			f.Length, err = strconv.ParseInt(v, 10, 64)
		case colCharset:
			f.Charset = v
		case colETag:
			f.ETag = v
		case colLastModified:
			f.LastModified = v
		case colRedirect:
			f.Redirect = v
		case colError:
			f.Error = v
		case colTruncated:
			f.Truncated, err = strconv.ParseBool(v)
		case colDepth:
			f.Depth, err = strconv.Atoi(v)
		case colLinks:
			f.Links, err = strconv.Atoi(v)
		case colLinksKept:
			f.LinksKept, err = strconv.Atoi(v)
		}
		if err != nil {
			return f, fmt.Errorf("webtable: row %q column %s holds %q: %w", row.Key(), it.Column, v, err)
		}
	}
	return f, nil
}

// parseOldEntry reads a frontier entry's row in the form before
// FormatEntryCell. The URL is taken as it is: whether it is one of the
// entry's host is for the readers of the entry to say.
func parseOldEntry(r bigtable.Row) (crawlstore.Entry, error) {
	e := crawlstore.Entry{Frontier: r.Key()}
	for _, it := range r[FamilyFetch] {
		v := string(it.Value)
		var err error
		switch qualifier(it.Column) {
		case colURL:
			e.URL = v
		case colDepth:
			e.Depth, err = strconv.Atoi(v)
		case colChain:
			e.Chain, err = strconv.Atoi(v)
		}
		if err != nil {
			return e, fmt.Errorf("column %s holds %q: %w", it.Column, v, err)
		}
	}
	return e, nil
}

// hasColumn reports whether the row's fam family holds a cell of one of
// the qualifiers qs.
func hasColumn(r bigtable.Row, fam string, qs ...string) bool {
	for _, it := range r[fam] {
		q := qualifier(it.Column)
		for _, x := range qs {
			if q == x {
				return true
			}
		}
	}
	return false
}
