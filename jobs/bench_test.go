package jobs_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/text"
)

var benchPages = flag.Int("textdups.pages", 2000, "pages of BenchmarkTextDups (the issue's figure: 100000)")

// BenchmarkTextDups compares the text and dups jobs over a store with the
// same functions (text.Analyze, dups.Simhash) called on the same bytes in
// memory: the runner's overhead. It reports the ratio of their speeds.
func BenchmarkTextDups(b *testing.B) {
	n := *benchPages
	pages := make([]jobstest.Page, n)
	for i := range pages {
		var body strings.Builder
		for k := 0; k < 40; k++ {
			fmt.Fprintf(&body, "<p>Paragraph %d of story %d tells of the %d railway stations that the committee will visit next spring.</p>", k, i, (i*k)%97)
		}
		pages[i] = jobstest.Page{URL: fmt.Sprintf("http://h%d.example.com/%d.html", i%50, i),
			HTML: "<html><head><title>Story " + fmt.Sprint(i) + "</title></head><body>" + body.String() + "</body></html>"}
	}
	w := jobstest.Open(b, b.TempDir(), 0)
	defer w.Close()
	jobstest.Store(b, w, pages)
	b.ResetTimer()
	var inMem, job time.Duration
	for range b.N {
		t0 := time.Now()
		for _, p := range pages {
			r := text.Analyze([]byte(p.HTML), "text/html")
			dups.Simhash(r.Body)
		}
		inMem += time.Since(t0)
		t0 = time.Now()
		for _, j := range []jobs.Job{text.Job{}, &dups.Job{}} {
			if _, err := jobs.Run(context.Background(), w, j, jobs.Config{Full: true, Workers: 1}); err != nil {
				b.Fatal(err)
			}
		}
		job += time.Since(t0)
	}
	b.ReportMetric(float64(inMem)/float64(job), "speed-ratio")
	b.ReportMetric(float64(n*b.N)/job.Seconds(), "pages/s")
}
