package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
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
		cpu := sampleBrowserCPU("--user-data-dir=" + tmpdir)
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

// sampleBrowserCPU samples, every 50 ms, the CPU time of the processes
// whose command line holds want, keeping each one's last reading; the
// function it returns stops and gives the sum.
func sampleBrowserCPU(want string) func() time.Duration {
	last := map[string]time.Duration{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			entries, _ := os.ReadDir("/proc")
			for _, e := range entries {
				cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				if err != nil || !bytes.Contains(cmdline, []byte(want)) {
					continue
				}
				if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
					last[e.Name()] = max(last[e.Name()], statCPU(stat))
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	return func() time.Duration {
		close(stop)
		wg.Wait()
		var total time.Duration
		for _, c := range last {
			total += c
		}
		return total
	}
}

// statCPU is the user and system time of a /proc/<pid>/stat (fields 14
// and 15, in clock ticks of 10 ms).
func statCPU(stat []byte) time.Duration {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(string(f[11]), 10, 64)
	s, _ := strconv.ParseInt(string(f[12]), 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}
