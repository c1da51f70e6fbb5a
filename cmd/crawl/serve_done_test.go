package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// statsBy runs "query --db db stats --json" (over the wire while a crawl
// serves db) and returns its counts.
func statsBy(t *testing.T, queryBin, db string) (fetched, failed, queued, frontier int64) {
	t.Helper()
	out, err := exec.Command(queryBin, "--db", db, "stats", "--json").CombinedOutput()
	if err != nil {
		t.Fatalf("query stats: %v\n%s", err, out)
	}
	var s struct {
		Fetched  int64 `json:"fetched"`
		Failed   int64 `json:"failed"`
		Queued   int64 `json:"queued"`
		Frontier int64 `json:"frontier"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &s); err != nil {
		t.Fatalf("query stats --json printed %q: %v", out, err)
	}
	return s.Fetched, s.Failed, s.Queued, s.Frontier
}

// TestServeCrawlSaysItIsDone runs the real "crawl --serve" binary, polite
// (--delay 20ms --per-host 1 --concurrency 1), on a web whose hosts also
// link to pages of their https origin, which the proxy never connects to
// (issue 30: on the PostgreSQL manual the crawl said it was over after
// 128 of its 1,169 pages and served on, the rest queued). Once the crawl
// says it is over, "query stats" over the wire finds every page of the
// http origins fetched and nothing queued: the pages of the https origins
// were tried through http (one row key for both schemes), which answers
// 404 for them; the crawl keeps serving until SIGINT, then exits 0.
func TestServeCrawlSaysItIsDone(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the crawl and query binaries (CI runs it)")
	}
	const hosts, pages, secureEvery = 2, 60, 10
	tmp := t.TempDir()
	crawlBin, queryBin := buildCrawl(t, tmp), buildQuery(t, tmp)
	site := newCrashSiteSecure(t, hosts, pages, secureEvery)
	unreachable := int64(hosts * pages / secureEvery)

	db := filepath.Join(tmp, "served.db")
	args := append([]string{"--db", db, "--proxy", site.srv.URL, "--delay", "20ms", "--depth", "10000",
		"--concurrency", "1", "--per-host", "1", "--serve", "127.0.0.1:0"}, site.seeds()...)
	cmd := exec.Command(crawlBin, args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	exited, overC := make(chan error, 1), make(chan struct{})
	var log strings.Builder
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if strings.Contains(sc.Text(), "the crawl is over") {
				close(overC)
			}
		}
		exited <- cmd.Wait()
	}()
	logText := func() string { logMu.Lock(); defer logMu.Unlock(); return log.String() }

	select {
	case <-overC:
	case err := <-exited:
		t.Fatalf("crawl --serve exited instead of saying the crawl is over and serving on: %v\n%s", err, logText())
	case <-time.After(2 * time.Minute):
		t.Fatalf("crawl --serve did not say the crawl is over within 2 minutes\n%s", logText())
	}
	fetched, failed, queued, frontier := statsBy(t, queryBin, db)
	if fetched != hosts*pages || queued != 0 || failed != unreachable {
		t.Errorf("query stats over the wire once the crawl said it is over: fetched %d, failed %d, queued %d (frontier %d); want every one of the %d pages of the http origins fetched, the %d pages of the unreachable https origins tried over http (404), nothing queued\n%s",
			fetched, failed, queued, frontier, hosts*pages, unreachable, logText())
	}
	if site.connects() == 0 {
		t.Errorf("the crawl never tried the https origins: the test tests nothing")
	}

	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("crawl --serve after SIGINT: %v, want exit status 0\n%s", err, logText())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("crawl --serve still runs 30 s after SIGINT\n%s", logText())
	}
}
