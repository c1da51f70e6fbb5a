package search

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

var (
	benchPages   = flag.Int("search.pages", 2000, "pages of BenchmarkSearch (the issue's figure: 100000)")
	benchQueries = flag.Int("search.queries", 2000, "queries of BenchmarkSearch")
)

// benchWeb is n pages of some 250 words drawn from a Zipf vocabulary of
// 30,000 made-up words, on 500 hosts.
func benchWeb(n int) []jobstest.Page {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 30000)
	for i := range vocab {
		var b strings.Builder
		for k := 0; k < 3+i%6; k++ {
			b.WriteByte("bcdfghklmnprstvz"[rng.IntN(16)])
			b.WriteByte("aeiou"[rng.IntN(5)])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	pages := make([]jobstest.Page, n)
	for i := range pages {
		var body strings.Builder
		for p := 0; p < 5; p++ {
			body.WriteString("<p>")
			for k := 0; k < 50; k++ {
				body.WriteString(vocab[zipf.Uint64()])
				body.WriteByte(' ')
			}
			body.WriteString("</p>")
		}
		title := vocab[zipf.Uint64()] + " " + vocab[zipf.Uint64()] + " " + vocab[rng.IntN(len(vocab))]
		pages[i] = jobstest.Page{URL: fmt.Sprintf("http://h%d.example.com/%d.html", i%500, i),
			HTML: "<html><head><title>" + title + "</title></head><body>" + body.String() + "</body></html>"}
	}
	return pages
}

// BenchmarkSearch builds the index over stored pages with the search job
// and, beside it, with bleve alone from the same documents in memory
// (same mapping, same batches); then runs 1-3 word queries drawn from the
// pages' text, top 10 with snippets, two at a time. It reports both build
// rates, the index's size beside the text it holds, and query latencies.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	n := *benchPages
	pages := benchWeb(n)
	w := jobstest.Open(b, b.TempDir(), 0)
	defer w.Close()
	t0 := time.Now()
	jobstest.Store(b, w, pages)
	if _, err := jobs.Run(ctx, w, text.Job{}, jobs.Config{Workers: 2}); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d pages stored and their text extracted in %v", n, time.Since(t0).Round(time.Millisecond))
	var docs []document
	var textBytes int64
	var bodies []string
	err := w.ScanSelect(ctx, "", "", Select, func(r webtable.Row) bool {
		ds, _ := rowDocs(r)
		for _, d := range ds {
			textBytes += int64(len(d.Fields[FieldTitle].(string)) + len(d.Fields[FieldBody].(string)))
			bodies = append(bodies, d.Fields[FieldBody].(string))
		}
		docs = append(docs, ds...)
		return true
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rawDir, ourDir := b.TempDir(), b.TempDir()
		t0 = time.Now()
		raw, err := bleve.New(filepath.Join(rawDir, "raw"), NewMapping())
		if err != nil {
			b.Fatal(err)
		}
		batch := raw.NewBatch()
		for _, d := range docs {
			batch.Index(d.ID, d.Fields)
			if batch.Size() >= BatchDocs {
				if err := raw.Batch(batch); err != nil {
					b.Fatal(err)
				}
				batch.Reset()
			}
		}
		if err := raw.Batch(batch); err != nil {
			b.Fatal(err)
		}
		raw.Close()
		rawTook := time.Since(t0)
		t0 = time.Now()
		sh, err := OpenShard(ourDir, 0, 1, b.Logf)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := jobs.Run(ctx, w, &Job{Shard: sh}, jobs.Config{Full: true, Workers: 1}); err != nil {
			b.Fatal(err)
		}
		sh.Close()
		ourTook := time.Since(t0)
		mb := float64(textBytes) / 1e6
		b.ReportMetric(float64(len(docs))/ourTook.Seconds(), "pages/s")
		b.ReportMetric(mb/ourTook.Seconds(), "MB/s")
		b.ReportMetric(float64(len(docs))/rawTook.Seconds(), "raw-pages/s")
		b.ReportMetric(rawTook.Seconds()/ourTook.Seconds(), "speed-ratio")
		size := dirSize(b, ourDir)
		b.ReportMetric(float64(size)/float64(textBytes), "size/text")
		b.Logf("build: ours %v (%.0f pages/s, %.1f MB/s), raw bleve %v (%.0f pages/s, %.1f MB/s), ratio %.2f; index %.1f MB, raw's %.1f MB, text %.1f MB",
			ourTook.Round(time.Millisecond), float64(len(docs))/ourTook.Seconds(), mb/ourTook.Seconds(),
			rawTook.Round(time.Millisecond), float64(len(docs))/rawTook.Seconds(), mb/rawTook.Seconds(),
			rawTook.Seconds()/ourTook.Seconds(), float64(size)/1e6, float64(dirSize(b, rawDir))/1e6, mb)
		benchQueriesOver(b, w, ourDir, bodies)
	}
}

// benchQueriesOver runs the queries, two at a time, and reports latency
// percentiles and the rate.
func benchQueriesOver(b *testing.B, w *webtable.WebTable, dir string, bodies []string) {
	r, err := OpenReader(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	queries := make([]string, *benchQueries)
	for i := range queries {
		words := strings.Fields(bodies[rng.IntN(len(bodies))])
		k := 1 + rng.IntN(3)
		at := rng.IntN(len(words) - k)
		queries[i] = strings.Join(words[at:at+k], " ")
	}
	lat := make([]time.Duration, len(queries))
	var wg sync.WaitGroup
	next := make(chan int)
	t0 := time.Now()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := time.Now()
				if _, err := r.Search(context.Background(), w, Request{Query: queries[i], Limit: 10}); err != nil {
					b.Error(err)
				}
				lat[i] = time.Since(s)
			}
		}()
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	took := time.Since(t0)
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(queries))/took.Seconds(), "queries/s")
	b.Logf("queries: %d in %v, two at a time: %.0f/s, p50 %v, p99 %v", len(queries), took.Round(time.Millisecond),
		float64(len(queries))/took.Seconds(), p50, p99)
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
