package main

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/spaweb"
)

// BenchmarkRenderCrawl crawls the 400-page SPA site in this process, as
// TestRenderFigures does with the binary (--render always, --render-tabs
// 2, --concurrency 4, --delay 0), to set the crawl beside the pool alone
// (render's BenchmarkRender): it reports rendered pages per second, and
// per page the CPU time of the browser's processes and of this process
// (the crawler, its store, and the site it crawls).
//
//	go test -run '^$' -bench RenderCrawl -benchtime 1x ./cmd/crawl/
func BenchmarkRenderCrawl(b *testing.B) {
	chromiumtest.Need(b)
	site := spaweb.Start(400)
	defer site.Close()
	tmpdir := b.TempDir()
	b.Setenv("TMPDIR", tmpdir)
	b.Setenv("HTTP_PROXY", "")
	var wall, browserCPU, selfCPU time.Duration
	var pages int
	for i := range b.N {
		db := filepath.Join(tmpdir, "db"+strconv.Itoa(i))
		cpu := chromiumtest.SampleCPU(func() []int { return chromiumtest.ProcsWithArg("--user-data-dir=" + tmpdir) })
		self, start := cpuTime(), time.Now()
		code, _, stderr := runCrawl(context.Background(), "--db", db, "--delay", "0", "--depth", "20", "--render", "always",
			"--render-tabs", "2", "--concurrency", "4", site.URL+"/p/0")
		wall += time.Since(start)
		selfCPU += cpuTime() - self
		browserCPU += cpu()
		if code != exitOK {
			b.Fatalf("crawl: exit %d\n%s", code, stderr)
		}
		pages += site.Pages
	}
	b.ReportMetric(float64(pages)/wall.Seconds(), "pages/s")
	b.ReportMetric(float64(browserCPU.Milliseconds())/float64(pages), "browser-cpu-ms/page")
	b.ReportMetric(float64(selfCPU.Milliseconds())/float64(pages), "crawler-cpu-ms/page")
}
