package webtable

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// noGCStore is the embedded store with SetGCPolicy ignored: a WebTable
// whose families keep every version, so writes prune nothing.
type noGCStore struct{ *bigtable.DB }

func (noGCStore) SetGCPolicy(context.Context, string, string, bigtable.GCPolicy) error { return nil }

// benchFetched is what the crawler saves for page i of a site shaped like
// crawlertest.GenSite: ~1.2 KB of HTML, a link home and links to pages
// 10i+1 .. 10i+10, which are queued.
func benchFetched(i int, t time.Time) *Fetched {
	url := fmt.Sprintf("http://bench.example/p/%d", i)
	var body strings.Builder
	fmt.Fprintf(&body, "<!doctype html><html><head><title>Page %d</title></head><body><h1>Page %d</h1>\n<a href=\"/\">Home</a>\n", i, i)
	anchors := []Anchor{{URL: "http://bench.example/", Text: "Home"}}
	var discovered []crawlstore.Entry
	for c := 10*i + 1; c <= 10*i+10; c++ {
		target := fmt.Sprintf("http://bench.example/p/%d", c)
		fmt.Fprintf(&body, "<a href=\"/p/%d\">Page %d</a>\n", c, c)
		anchors = append(anchors, Anchor{URL: target, Text: fmt.Sprintf("Page %d", c)})
		discovered = append(discovered, crawlstore.Entry{URL: target, Depth: 2})
	}
	body.WriteString(strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", 12))
	ts := bigtable.Time(t).TruncateToMilliseconds()
	return &Fetched{
		Page: &Page{
			Fetch:    crawlstore.Fetch{URL: url, Status: 200, Time: t, Length: int64(body.Len()), Charset: "utf-8", Depth: 1},
			MIME:     "text/html",
			KeepBody: true,
			Body:     []byte(body.String()),
		},
		Anchors:    anchors,
		Discovered: discovered,
		AnchorTime: ts,
		State:      crawlstore.StateDone,
		StateTime:  ts,
	}
}

// BenchmarkSave saves crawled pages (Save: the page's row, an anchor in
// each of its 11 link targets' rows, 10 frontier entries, the done mark)
// into a WebTable on disk with the real families and GC policies, beside
// the same saves into a WebTable whose families keep every version. Both
// write the same cells; the GC policies add the pruning every WebTable
// write pays (reading the versions of each written column). ratio is the
// pruning store's pages/s over the other's. Each b.N is one page.
func BenchmarkSave(b *testing.B) {
	ctx := context.Background()
	gcdb, err := bigtable.Open(filepath.Join(b.TempDir(), "gc"))
	if err != nil {
		b.Fatal(err)
	}
	real, err := New(ctx, gcdb, gcdb.Open(TableName), true, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer real.Close()
	db, err := bigtable.Open(filepath.Join(b.TempDir(), "nogc"))
	if err != nil {
		b.Fatal(err)
	}
	plain, err := New(ctx, noGCStore{db}, db.Open(TableName), true, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	t := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var withGC, without time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		f := benchFetched(i, t.Add(time.Duration(i)*time.Millisecond))
		// Alternate which store goes first, so neither gets the other's
		// warm caches for free.
		first, second, d1, d2 := real, plain, &withGC, &without
		if i%2 == 1 {
			first, second, d1, d2 = plain, real, &without, &withGC
		}
		t0 := time.Now()
		if _, _, err := first.Save(ctx, f); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, _, err := second.Save(ctx, f); err != nil {
			b.Fatal(err)
		}
		*d1 += t1.Sub(t0)
		*d2 += time.Since(t1)
	}
	b.ReportMetric(float64(b.N)/withGC.Seconds(), "pages/s")
	b.ReportMetric(float64(b.N)/without.Seconds(), "nogc-pages/s")
	b.ReportMetric(without.Seconds()/withGC.Seconds(), "ratio")
	b.ReportMetric(0, "ns/op")
}
