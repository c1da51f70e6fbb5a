// Package jobstest builds small WebTables for the tests of the indexing
// jobs: pages stored as the crawler stores them (webtable.Save), and a
// dump of the derived families to compare two runs byte for byte.
package jobstest

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// Open creates (or reopens) a WebTable in dir whose tablets split at
// splitSize bytes (0: the default), with the derived families.
func Open(tb testing.TB, dir string, splitSize int64) *webtable.WebTable {
	tb.Helper()
	w, _ := OpenDB(tb, dir, splitSize)
	return w
}

// OpenDB is Open that also returns the table beneath, for tests that
// damage what the crawl wrote.
func OpenDB(tb testing.TB, dir string, splitSize int64) (*webtable.WebTable, *bigtable.Table) {
	tb.Helper()
	var opts []bigtable.Option
	if splitSize > 0 {
		opts = append(opts, bigtable.WithTabletSplitSize(splitSize))
	}
	db, err := bigtable.Open(dir, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := webtable.New(context.Background(), db, db.Open(webtable.TableName), true, webtable.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.EnsureDerived(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return w, db.Open(webtable.TableName)
}

// Page is a page to store: its URL, body and the URLs it links to.
type Page struct {
	URL   string
	HTML  string
	Links []string
	// MIME is the media type; "" means text/html.
	MIME string
	// Time is the fetch time; zero means Base plus the page's index in
	// seconds.
	Time time.Time
}

// Base is the fetch time of generated pages.
var Base = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// Store saves pages as fetched HTML pages with their links as anchors.
func Store(tb testing.TB, w *webtable.WebTable, pages []Page) {
	tb.Helper()
	ctx := context.Background()
	for i, p := range pages {
		t := p.Time
		if t.IsZero() {
			t = Base.Add(time.Duration(i) * time.Second)
		}
		f := &webtable.Fetched{
			Page: &webtable.Page{
				Fetch:    crawlstore.Fetch{URL: p.URL, Status: 200, Time: t, Length: int64(len(p.HTML))},
				MIME:     cmp.Or(p.MIME, "text/html"),
				KeepBody: true,
				Body:     []byte(p.HTML),
			},
			AnchorTime: webtable.TimestampOf(t).TruncateToMilliseconds(),
			State:      crawlstore.StateDone,
			StateTime:  webtable.TimestampOf(t).TruncateToMilliseconds(),
		}
		for _, l := range p.Links {
			f.Anchors = append(f.Anchors, webtable.Anchor{URL: l, Text: "link"})
		}
		if _, _, err := w.Save(ctx, f); err != nil {
			tb.Fatalf("storing %s: %v", p.URL, err)
		}
	}
	if err := w.FlushDeletes(ctx); err != nil {
		tb.Fatal(err)
	}
}

// Dump is every cell of the derived families of every page row, one line
// each ("key family:qualifier @timestamp = value"), in key order.
func Dump(tb testing.TB, w *webtable.WebTable) string {
	tb.Helper()
	var b bytes.Buffer
	err := w.ScanSelect(context.Background(), "", "", webtable.Select{AllVersions: webtable.DerivedFamilies}, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			fmt.Fprintf(&b, "%s %s @%d = %q\n", r.Key, c.Column(), c.Timestamp, c.Value)
		}
		return true
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// Column reads one column of every page row that has it: key -> value.
func Column(tb testing.TB, w *webtable.WebTable, col string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := w.ScanSelect(context.Background(), "", "", webtable.Select{Columns: []string{col}}, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			out[r.Key] = string(c.Value)
		}
		return true
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// Keys returns the keys of m, sorted.
func Keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
