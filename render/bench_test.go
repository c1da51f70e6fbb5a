package render

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/spaweb"
)

// BenchmarkRender renders the SPA site's tree pages with two tabs, two
// renders at a time; it reports rendered pages per second (the browser is
// started before the clock) and the CPU time the browser's processes
// used per page.
//
//	go test -run '^$' -bench Render -benchtime 200x ./render/
func BenchmarkRender(b *testing.B) {
	chromiumtest.Need(b)
	site := spaweb.Start(100)
	defer site.Close()
	pool, err := New(Options{Tabs: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	t := &testing.T{}
	jobs := make(chan string)
	var wg sync.WaitGroup
	ctx := context.Background()
	warm := shellOf(t, site, "/p/0")
	if _, err := pool.Render(ctx, warm); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	// NB: the browser's CPU from here on: what it used to start and on
	// the first page is taken off.
	browserProcs := func() []int { return groupProcs(pool.PGID()) }
	before := chromiumtest.SampleCPU(browserProcs)()
	cpu := chromiumtest.SampleCPU(browserProcs)
	start := time.Now()
	for range 2 {
		wg.Go(func() {
			for p := range jobs {
				job := warm
				job.URL = site.URL + p
				if _, err := pool.Render(ctx, job); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range b.N {
		jobs <- "/p/" + itoa(i%100)
	}
	close(jobs)
	wg.Wait()
	took := time.Since(start)
	b.ReportMetric(float64(b.N)/took.Seconds(), "pages/s")
	b.ReportMetric(float64((cpu()-before).Milliseconds())/float64(b.N), "browser-cpu-ms/page")
}

func itoa(i int) string {
	return strconv.Itoa(i)
}
