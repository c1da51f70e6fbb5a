package rank_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/webtable"
)

var (
	benchPages = flag.Int("rank.pages", 10_000, "pages of the generated graph of BenchmarkRankJob (the issue's figure: 1000000)")
	benchLinks = flag.Int("rank.links", 30, "links per page of the generated graph")
	benchDir   = flag.String("rank.dir", "", "keep the generated store here and reuse it (it takes long to write at 1M pages)")
)

// genStore writes pages pages of links links each, targets skewed
// towards low page numbers, over 1,000 hosts.
func genStore(b *testing.B, dir string, pages, links int) {
	w := jobstest.Open(b, dir, 0)
	defer w.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	url := func(i int) string { return fmt.Sprintf("http://h%03d.example.com/%d", i%1000, i) }
	ctx := context.Background()
	t0 := time.Now()
	for i := 0; i < pages; i++ {
		t := jobstest.Base.Add(time.Duration(i) * time.Millisecond)
		f := &webtable.Fetched{
			Page: &webtable.Page{Fetch: crawlstore.Fetch{URL: url(i), Status: 200, Time: t}, MIME: "text/html", KeepBody: true,
				Body: []byte("<p>page " + strconv.Itoa(i) + "</p>")},
			AnchorTime: webtable.TimestampOf(t).TruncateToMilliseconds(),
			State:      crawlstore.StateDone, StateTime: webtable.TimestampOf(t).TruncateToMilliseconds(),
			NewRow: true,
		}
		for k := 0; k < links; k++ {
			to := int(float64(pages) * rng.Float64() * rng.Float64())
			f.Anchors = append(f.Anchors, webtable.Anchor{URL: url(to)})
		}
		if _, _, err := w.Save(ctx, f); err != nil {
			b.Fatal(err)
		}
		if i%100_000 == 0 && i > 0 {
			fmt.Fprintf(os.Stderr, "stored %d pages in %v\n", i, time.Since(t0))
		}
	}
	if err := w.FlushDeletes(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("stored %d pages, %d links each, in %v", pages, links, time.Since(t0))
}

// cpuTime is the CPU time (user and system) this process used: on a
// machine shared with other work, steadier than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssAnon reads this process's RssAnon in bytes.
func rssAnon() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// BenchmarkRankJob runs the rank job (scan, graph, PageRank, writes) over
// a generated store; it reports the peak RssAnon seen during the run.
// The figure: go test ./jobs/rank -run X -bench RankJob -benchtime 1x
// -rank.pages 1000000 -rank.dir /tmp/rank1m -timeout 2h.
func BenchmarkRankJob(b *testing.B) {
	dir := *benchDir
	if dir == "" {
		dir = b.TempDir()
	}
	if _, err := os.Stat(dir + "/MANIFEST"); err != nil {
		genStore(b, dir, *benchPages, *benchLinks)
	}
	// NB: as cmd/index opens a store and sets its memory limit.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(jobs.MemoryLimit))
	}
	w, err := stores.OpenForJobs(context.Background(), dir, webtable.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			peak.Store(max(peak.Load(), rssAnon()))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		j := &rank.Job{}
		sum, err := jobs.Run(context.Background(), w, j, jobs.Config{Full: true, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "rank: %d rows, %d written, %d links, %d iterations, %v (scan %v, graph %v, PageRank %v)\n", sum.Counts.Rows, sum.Counts.Written,
			j.Edges, j.Iter, sum.Elapsed, j.ScanTime, j.GraphTime, j.RankTime)
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	close(stop)
	b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-RssAnon-peak")
}
