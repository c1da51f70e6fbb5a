package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/memlimit"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/internal/webgen"
	"github.com/webtable/webtable/webtable"
)

// The sizes of the scale benchmarks (the figures by default; CI
// runs the small tests below instead).
var (
	scaleHosts    = flag.Int("scale-hosts", 2000, "hosts of the generated grid web (BenchmarkManyHosts)")
	scalePages    = flag.Int("scale-pages", 100, "pages per host of the generated grid web (BenchmarkManyHosts)")
	scaleFetches  = flag.Int("scale-fetches", 100_000, "pages fetched from the tree web (BenchmarkFlatMemory)")
	scaleKillAt   = flag.Int("scale-kill-at", 60_000, "pages fetched before the kill (BenchmarkResume)")
	scaleConc     = flag.Int("scale-concurrency", 64, "fetches in flight (scale benchmarks)")
	scaleDelayDur = flag.Duration("scale-delay", 200*time.Millisecond, "per-host delay of BenchmarkManyHostsDelay")
	scaleKeepDB   = flag.String("scale-keep-db", "", "copy the store as the kill left it to this directory (BenchmarkResume), to study a resume again")
	scaleCrawlBin = flag.String("scale-crawl-bin", "", "run this crawl binary instead of building one (BenchmarkResume), to measure another version side by side")
	scaleSeen     = flag.Int("scale-seen-cache", crawler.DefaultSeenCache, "row keys the crawl's seen cache holds (--seen-cache)")
	scaleProfile  = flag.String("scale-cpuprofile", "", "write a CPU profile of each quarter of the fetches to `prefix`-q1.pprof .. -q4.pprof")
	scaleHeapProf = flag.String("scale-heapprofile", "", "directory to write heap profiles into: at each quarter of a scale crawl's fetches (after a garbage collection), and at the peak of the live heap")
)

// memPeak samples the process's anonymous memory (RssAnon in
// /proc/self/status: not Badger's mapped files) and the Go heap until
// stopped, keeping the peaks.
type memPeak struct {
	stop    chan struct{}
	done    chan struct{}
	rssAnon atomic.Int64
	heap    atomic.Int64
	live    atomic.Int64
	// onLive, when set, is called when the live heap passes its peak by
	// more than 8 MiB.
	onLive   func()
	reported int64
}

func startMemPeak(onLive func()) *memPeak {
	m := &memPeak{stop: make(chan struct{}), done: make(chan struct{}), onLive: onLive}
	go func() {
		defer close(m.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			m.sample()
			select {
			case <-m.stop:
				m.sample()
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *memPeak) sample() {
	if v := rssAnon(); v > m.rssAnon.Load() {
		m.rssAnon.Store(v)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if v := int64(ms.HeapInuse); v > m.heap.Load() {
		m.heap.Store(v)
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		if v := int64(live[0].Value.Uint64()); v > m.live.Load() {
			m.live.Store(v)
			if m.onLive != nil && v > m.reported+8<<20 {
				m.reported = v
				m.onLive()
			}
		}
	}
}

func (m *memPeak) finish() (rssAnon, heap, live int64) {
	close(m.stop)
	<-m.done
	return m.rssAnon.Load(), m.heap.Load(), m.live.Load()
}

// rssAnon reads RssAnon of this process in bytes; 0 where /proc is absent.
func rssAnon() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// processCPU returns the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runQueueWait returns the time this process's threads have spent
// runnable but waiting for a core (the second field of
// /proc/self/task/*/schedstat, summed); 0 where /proc is absent. Threads
// that ended are not counted.
func runQueueWait() time.Duration {
	paths, _ := filepath.Glob("/proc/self/task/*/schedstat")
	var sum time.Duration
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				sum += time.Duration(ns)
			}
		}
	}
	return sum
}

// scaleResult is what one measured crawl reports.
type scaleResult struct {
	stats    crawler.Stats
	quarters [4]float64 // pages/s in each quarter of the fetches
	// cpuPerPage is the process's CPU time per page in each quarter, ms:
	// what the crawl costs, whatever else the machine runs.
	cpuPerPage [4]float64
	// runQueue is, in each quarter, the time the process's threads were
	// runnable but not running (other processes had the cores), per
	// second: a crawl slowed by a loaded machine shows here.
	runQueue [4]float64
	elapsed  time.Duration // of the crawl
	rssAnon  int64         // peak RssAnon, bytes
	heap     int64         // peak Go heap in use (live and garbage), bytes
	live     int64         // peak live heap (marked by a garbage collection), bytes
}

// crawlWeb crawls web into a fresh store in dir with cfg (proxy and
// allowed domain set here), expecting about total fetches, and measures
// pages/s per quarter of them and peak memory.
func crawlWeb(tb testing.TB, web *webgen.Web, cfg crawler.Config, dir string, total int, seeds ...string) scaleResult {
	tb.Helper()
	cfg.Proxy = web.Proxy()
	cfg.AllowDomains = []string{webgen.Domain}
	defer setMemoryLimit(os.Getenv, memlimit.Limit(defaultMemoryLimit))() // as the program does
	w, err := stores.Open(context.Background(), dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	var mu sync.Mutex
	var marks [5]time.Time
	var cpus, waits [5]time.Duration
	next := 1
	prof := startQuarterProfile(tb, *scaleProfile, 1)
	cfg.Progress = func(s crawler.Stats) {
		mu.Lock()
		defer mu.Unlock()
		for next <= 4 && s.Fetched >= int64(next*total/4) {
			marks[next] = time.Now()
			cpus[next], waits[next] = processCPU(), runQueueWait()
			prof.stop()
			writeHeapProfile(tb, fmt.Sprintf("heap-%d-q%d.pprof", total, next), true)
			next++
			if next <= 4 {
				prof = startQuarterProfile(tb, *scaleProfile, next)
			}
		}
	}
	c, err := crawler.New(cfg, w.CrawlStore())
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	// NB: a heap profile shows the heap as of the last collection, the
	// one whose live heap was just read.
	mem := startMemPeak(func() { writeHeapProfile(tb, fmt.Sprintf("heap-%d-peak.pprof", total), false) })
	marks[0] = time.Now()
	cpus[0], waits[0] = processCPU(), runQueueWait()
	if len(seeds) == 0 {
		seeds = []string{web.Seed()}
	}
	st, err := c.Run(context.Background(), seeds)
	mu.Lock()
	prof.stop()
	mu.Unlock()
	res := scaleResult{stats: st, elapsed: time.Since(marks[0])}
	res.rssAnon, res.heap, res.live = mem.finish()
	if err != nil {
		tb.Fatal(err)
	}
	for q := 1; q <= 4; q++ {
		if !marks[q].IsZero() && !marks[q-1].IsZero() {
			res.quarters[q-1] = float64(total/4) / marks[q].Sub(marks[q-1]).Seconds()
			res.cpuPerPage[q-1] = (cpus[q] - cpus[q-1]).Seconds() * 1000 / float64(total/4)
			res.runQueue[q-1] = (waits[q] - waits[q-1]).Seconds() / marks[q].Sub(marks[q-1]).Seconds()
		}
	}
	return res
}

// quarterProfile is a CPU profile of one quarter of a crawl's fetches.
type quarterProfile struct{ f *os.File }

// startQuarterProfile starts the CPU profile of quarter q into
// prefix-q<q>.pprof; with prefix "" it does nothing.
func startQuarterProfile(tb testing.TB, prefix string, q int) *quarterProfile {
	if prefix == "" {
		return &quarterProfile{}
	}
	f, err := os.Create(fmt.Sprintf("%s-q%d.pprof", prefix, q))
	if err != nil {
		tb.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		tb.Fatal(err)
	}
	return &quarterProfile{f: f}
}

// stop ends the profile; a second call does nothing.
func (p *quarterProfile) stop() {
	if p.f != nil {
		pprof.StopCPUProfile()
		p.f.Close()
		p.f = nil
	}
}

// writeHeapProfile writes a heap profile named name into -scale-heapprofile
// (after a garbage collection if gc), when that flag is set.
func writeHeapProfile(tb testing.TB, name string, gc bool) {
	if *scaleHeapProf == "" {
		return
	}
	if gc {
		runtime.GC()
	}
	f, err := os.Create(filepath.Join(*scaleHeapProf, name))
	if err != nil {
		tb.Error(err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		tb.Error(err)
	}
}

func scaleConfig(conc, perHost int, delay time.Duration) crawler.Config {
	cfg := crawler.DefaultConfig()
	cfg.Depth = 1 << 20
	cfg.Concurrency, cfg.PerHost, cfg.Delay = conc, perHost, delay
	cfg.SeenCache = *scaleSeen
	return cfg
}

func report(b *testing.B, r scaleResult) {
	for q, v := range r.quarters {
		b.ReportMetric(v, fmt.Sprintf("pages/s-q%d", q+1))
	}
	if r.quarters[1] > 0 {
		b.ReportMetric(r.quarters[2]/r.quarters[1], "q3/q2")
	}
	for q, v := range r.cpuPerPage {
		b.ReportMetric(v, fmt.Sprintf("cpu-ms/page-q%d", q+1))
	}
	for q, v := range r.runQueue {
		b.ReportMetric(v, fmt.Sprintf("runq-s/s-q%d", q+1))
	}
	b.ReportMetric(float64(r.rssAnon)/(1<<20), "peak-RssAnon-MiB")
	b.ReportMetric(float64(r.heap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(r.live)/(1<<20), "peak-live-MiB")
	b.ReportMetric(float64(r.stats.Fetched), "pages")
	// Shares of the workers' time: idle, and idle while a host was due
	// for them (near 0: all workers busy whenever enough hosts were due).
	if wt := float64(*scaleConc) * r.elapsed.Seconds(); wt > 0 {
		b.ReportMetric(r.stats.Idle.Seconds()/wt, "idle-share")
		b.ReportMetric(r.stats.IdleReady.Seconds()/wt, "idle-while-due-share")
	}
}

// TestManyHostsSmall is the CI size of BenchmarkManyHosts: every page of
// 60 hosts fetched exactly once, through the proxy.
func TestManyHostsSmall(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const hosts, pages = 60, 10
	web := webgen.Start(webgen.Config{Shape: webgen.Grid, Hosts: hosts, Pages: pages, PageBytes: 512})
	defer web.Close()
	r := crawlWeb(t, web, scaleConfig(16, 2, 0), filepath.Join(t.TempDir(), "db"), hosts*pages)
	if r.stats.Fetched != hosts*pages || web.Pages() != hosts*pages || web.Twice() != 0 {
		t.Errorf("fetched %d, server saw %d page requests (%d twice); want %d once each", r.stats.Fetched, web.Pages(), web.Twice(), hosts*pages)
	}
}

// TestManyHostsDelaySmall: with a per-host delay the server never sees
// two requests to one host within it (robots.txt included), across 20
// hosts. NB: exact, however loaded the machine: the server stamps a
// request when its handler starts, and the crawler counts the delay from
// the end of the previous response to the host, which comes after that.
func TestManyHostsDelaySmall(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const hosts, pages, delay = 20, 4, 100 * time.Millisecond
	web := webgen.Start(webgen.Config{Shape: webgen.Grid, Hosts: hosts, Pages: pages, PageBytes: 512})
	defer web.Close()
	r := crawlWeb(t, web, scaleConfig(16, 2, delay), filepath.Join(t.TempDir(), "db"), hosts*pages)
	if r.stats.Fetched != hosts*pages || web.Twice() != 0 {
		t.Errorf("fetched %d (%d twice), want %d once each", r.stats.Fetched, web.Twice(), hosts*pages)
	}
	if gap, n := web.MinGap(); n == 0 || gap < delay {
		t.Errorf("shortest gap between two requests to one host = %v over %d hosts, want at least %v", gap, n, delay)
	}
}

// TestFlatMemorySmall is the CI size of BenchmarkFlatMemory: page n of the
// tree links to 50 new pages; 400 fetches queue about 20,000 URLs, all in
// the store, while the crawler holds a window of each host in memory.
func TestFlatMemorySmall(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const fetches = 400
	web := webgen.Start(webgen.Config{Shape: webgen.Tree, Fan: 50, PageBytes: 256})
	defer web.Close()
	cfg := scaleConfig(8, 8, 0)
	cfg.MaxPages = fetches
	dir := filepath.Join(t.TempDir(), "db")
	r := crawlWeb(t, web, cfg, dir, fetches)
	if r.stats.Fetched != fetches || web.Twice() != 0 {
		t.Errorf("fetched %d (%d twice), want %d once each", r.stats.Fetched, web.Twice(), fetches)
	}
	if r.stats.Queued > crawler.DefaultWindow {
		t.Errorf("%d entries held in memory at the end, want at most one window (%d)", r.stats.Queued, crawler.DefaultWindow)
	}
	w, err := stores.Open(context.Background(), dir, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st, err := w.Stats(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(fetches*50 - fetches); st.Frontier < want-100 || st.Frontier > want+100 {
		t.Errorf("frontier holds %d entries, want about %d", st.Frontier, want)
	}
}

// BenchmarkManyHosts crawls -scale-hosts hosts of -scale-pages pages
// (2,000 x 100 by default) with no delay, 64 in flight, 2 per host, and
// reports pages/s per quarter of the fetches, q3/q2, and peak RssAnon and
// heap. Run with -benchtime 1x.
func BenchmarkManyHosts(b *testing.B) {
	benchGrid(b, 0)
}

// BenchmarkManyHostsDelay is BenchmarkManyHosts with a per-host delay
// (-scale-delay, 200ms by default), seeded with the first page of every
// host; it also reports the shortest gap between two requests to one host
// and how much of the workers' time they idled while a host was due.
//
// NB: from one seed the grid's hosts are found through the links to hosts
// h+97 and h+194, a chain about hosts/2 hosts long whose every link waits
// for a host's robots.txt and then its delay: 2,000 hosts x 10 pages took
// 211 s at 95 pages/s with 99.5% of the workers idle for want of a host.
// Seeding every host makes "enough hosts are ready" true.
func BenchmarkManyHostsDelay(b *testing.B) {
	benchGrid(b, *scaleDelayDur)
}

func benchGrid(b *testing.B, delay time.Duration) {
	b.Setenv("HTTP_PROXY", "")
	for range b.N {
		web := webgen.Start(webgen.Config{Shape: webgen.Grid, Hosts: *scaleHosts, Pages: *scalePages})
		total := *scaleHosts * *scalePages
		var seeds []string
		if delay > 0 {
			for h := range *scaleHosts {
				seeds = append(seeds, "http://"+webgen.Host(h)+"/p/0")
			}
		}
		r := crawlWeb(b, web, scaleConfig(*scaleConc, 2, delay), filepath.Join(b.TempDir(), "db"), total, seeds...)
		report(b, r)
		gap, _ := web.MinGap()
		b.ReportMetric(gap.Seconds()*1000, "min-gap-ms")
		b.ReportMetric(float64(web.Twice()), "fetched-twice")
		if web.Twice() != 0 || r.stats.Fetched != int64(total) {
			b.Errorf("fetched %d (%d twice), want %d once each", r.stats.Fetched, web.Twice(), total)
		}
		if delay > 0 && gap < delay {
			b.Errorf("shortest gap %v below the delay %v", gap, delay)
		}
		web.Close()
	}
}

// BenchmarkFlatMemory fetches -scale-fetches pages (100,000 by default)
// of the tree web, page n linking to 50 new pages (about 5,000,000 URLs
// discovered), then a tenth of that, and reports peak RssAnon and heap of
// both. Run with -benchtime 1x.
func BenchmarkFlatMemory(b *testing.B) {
	b.Setenv("HTTP_PROXY", "")
	for range b.N {
		for _, n := range []int{*scaleFetches / 10, *scaleFetches} {
			runtime.GC()
			web := webgen.Start(webgen.Config{Shape: webgen.Tree, Fan: 50})
			cfg := scaleConfig(*scaleConc, *scaleConc, 0)
			cfg.MaxPages = n
			r := crawlWeb(b, web, cfg, filepath.Join(b.TempDir(), "db"), n)
			web.Close()
			b.ReportMetric(float64(r.rssAnon)/(1<<20), fmt.Sprintf("peak-RssAnon-MiB-%d", n))
			b.ReportMetric(float64(r.heap)/(1<<20), fmt.Sprintf("peak-heap-MiB-%d", n))
			b.ReportMetric(float64(r.live)/(1<<20), fmt.Sprintf("peak-live-MiB-%d", n))
			b.ReportMetric(r.stats.PagesPerSecond(), fmt.Sprintf("pages/s-%d", n))
			if web.Twice() != 0 {
				b.Errorf("%d pages fetched twice", web.Twice())
			}
		}
	}
}

// TestResumeAfterKillSmall is the CI size of BenchmarkResume.
func TestResumeAfterKillSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and kills the crawl binary (CI runs it)")
	}
	lat, again := killAndResume(t, 1500, 8)
	if lat > 5*time.Second {
		t.Errorf("the resumed crawl's first page request came %v after its start, want within 5s", lat)
	}
	// NB: at the kill, at most --concurrency 8 pages were being fetched
	// and as many more stored (a worker stores its page while another
	// fetches).
	if again > 2*8 {
		t.Errorf("the resumed crawl fetched %d pages the killed one had fetched, want at most the 16 in progress (twice --concurrency)", again)
	}
}

// BenchmarkResume kills a crawl of the tree web after -scale-kill-at pages
// (60,000 by default) and reports how soon the next run's first page
// request leaves, and how many pages were fetched again. -scale-keep-db
// keeps a copy of the killed store (to time a resume's start-up again, or
// profile it); -scale-crawl-bin runs a given crawl binary (another
// version, measured side by side with this one).
func BenchmarkResume(b *testing.B) {
	for range b.N {
		lat, again := killAndResume(b, *scaleKillAt, *scaleConc)
		b.ReportMetric(lat.Seconds(), "resume-s")
		b.ReportMetric(float64(again), "fetched-again")
	}
}

// killAndResume runs the crawl binary on the tree web, kills it with
// SIGKILL once killAt pages were requested, and runs it again without
// seeds until its first page request. It returns the time from the second
// start to that request, and the number of pages both runs requested.
func killAndResume(tb testing.TB, killAt, conc int) (latency time.Duration, again int64) {
	tb.Helper()
	tmp := tb.TempDir()
	bin := *scaleCrawlBin
	if bin == "" {
		bin = buildBinary(tb, tmp)
	}
	var mu sync.Mutex
	var killed, second bool // the first run was killed; the second started
	first := map[string]bool{}
	var againN atomic.Int64
	kill := make(chan struct{})
	firstReq := make(chan time.Time, 1)
	web := webgen.Start(webgen.Config{Shape: webgen.Tree, Fan: 50, PageBytes: 512, OnPage: func(n int64, host, path string) {
		mu.Lock()
		defer mu.Unlock()
		if !killed {
			first[path] = true
			if n == int64(killAt) {
				killed = true
				close(kill)
			}
			return
		}
		if !second {
			return // a request of the killed run, still on its way
		}
		select {
		case firstReq <- time.Now():
		default:
		}
		if first[path] {
			againN.Add(1)
		}
	}})
	defer web.Close()
	db := filepath.Join(tmp, "db")
	cmd := func(seeds ...string) *exec.Cmd {
		args := append([]string{"--db", db, "--proxy", web.Proxy(), "--delay", "0", "--depth", "1000",
			"--concurrency", strconv.Itoa(conc), "--per-host", strconv.Itoa(conc), "--allow-domain", webgen.Domain}, seeds...)
		c := exec.Command(bin, args...)
		c.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
		return c
	}
	c1 := cmd(web.Seed())
	if err := c1.Start(); err != nil {
		tb.Fatal(err)
	}
	<-kill
	c1.Process.Signal(syscall.SIGKILL)
	c1.Wait()
	if *scaleKeepDB != "" {
		if out, err := exec.Command("cp", "-a", db, *scaleKeepDB).CombinedOutput(); err != nil {
			tb.Fatalf("copying the killed store: %v\n%s", err, out)
		}
	}
	// Requests of the killed run still on the wire arrive before Wait
	// returns or are refused; from here on the server counts the second.
	c2 := cmd()
	mu.Lock()
	second = true
	mu.Unlock()
	start := time.Now()
	if err := c2.Start(); err != nil {
		tb.Fatal(err)
	}
	defer func() {
		c2.Process.Signal(syscall.SIGKILL)
		c2.Wait()
	}()
	select {
	case at := <-firstReq:
		latency = at.Sub(start)
	case <-time.After(60 * time.Second):
		tb.Fatal("the resumed crawl made no page request in 60s")
	}
	// Let the second run go on a little, then count pages fetched again.
	deadline := time.Now().Add(2 * time.Second)
	for web.Pages() < int64(killAt)+int64(4*conc) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return latency, againN.Load()
}

// buildBinary builds the crawl binary into dir.
func buildBinary(tb testing.TB, dir string) string {
	tb.Helper()
	bin := filepath.Join(dir, "crawl")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/webtable/webtable/cmd/crawl").CombinedOutput()
	if err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
