package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the metrics at url with Prometheus's own text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the metrics of %s: %v", url, err)
	}
	return fams
}

// metric sums the values of a family's samples whose labels include
// those of want ("" sums all); a histogram's value is its count.
func metric(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	sum := 0.0
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(want); i += 2 {
			ok := false
			for _, l := range m.Label {
				ok = ok || (l.GetName() == want[i] && l.GetValue() == want[i+1])
			}
			if !ok {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// TestMetricsOfTheBinary runs the real crawl with --metrics, scrapes it
// while a page is held back and once the crawl is over, and checks that
// the counters are the figures of the crawl's summary.
func TestMetricsOfTheBinary(t *testing.T) {
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	const pages = 30
	gate, reached := make(chan struct{}), make(chan struct{})
	var once sync.Once
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil || n >= pages {
			http.NotFound(w, r) // robots.txt, and the missing pages linked
			return
		}
		if n == pages/2 {
			once.Do(func() { close(reached) })
			<-gate
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><a href="/p/%d">next</a> <a href="/missing/%d">gone</a></body></html>`, n+1, n)
	}))
	defer site.Close()
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()

	db := filepath.Join(tmp, "m.db")
	cmd := exec.Command(bin, "--db", db, "--proxy", site.URL, "--delay", "0", "--depth", "100",
		"--metrics", "127.0.0.1:0", "--serve", "127.0.0.1:0", "http://a.test/p/0")
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addrC, overC := make(chan string, 1), make(chan struct{})
	var log strings.Builder
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			log.WriteString(line + "\n")
			logMu.Unlock()
			if rest, ok := strings.CutPrefix(line, "serving metrics on "); ok {
				addrC <- rest
			}
			if strings.Contains(line, "the crawl is over") {
				close(overC)
			}
		}
	}()
	var url string
	select {
	case url = <-addrC:
	case <-time.After(time.Minute):
		t.Fatal("crawl never said where it serves its metrics")
	}
	<-reached
	during := scrape(t, url)
	if got := metric(during, "webtable_crawl_running"); got != 1 {
		t.Errorf("during the crawl: webtable_crawl_running = %v, want 1", got)
	}
	if got := metric(during, "webtable_crawl_in_flight"); got < 1 {
		t.Errorf("during the crawl, with a page held: webtable_crawl_in_flight = %v, want >= 1", got)
	}
	if got := metric(during, "webtable_crawl_pages_total", "result", "new_version"); got < 1 || got > pages/2 {
		t.Errorf("during the crawl: pages stored as new versions = %v, want 1 to %d (the pages before the one held)", got, pages/2)
	}
	if got := metric(during, "webtable_crawl_stored_frontier_entries"); got < 1 {
		t.Errorf("during the crawl, with a page held: webtable_crawl_stored_frontier_entries = %v, want >= 1 (its entry)", got)
	}
	if f := during["webtable_crawl_due_pages"]; f == nil || len(f.Metric) != 2 || metric(during, "webtable_crawl_due_pages") != 0 {
		t.Errorf("during a crawl that is not continuous: webtable_crawl_due_pages %v, want two samples (now, day) of 0", f)
	}
	if metric(during, "go_memstats_heap_alloc_bytes") <= 0 {
		t.Errorf("during the crawl: no go_memstats_heap_alloc_bytes (memory)")
	}
	close(gate)
	select {
	case <-overC:
	case <-time.After(2 * time.Minute):
		logMu.Lock()
		t.Fatalf("the crawl did not end:\n%s", log.String())
	}
	end := scrape(t, url)
	logMu.Lock()
	out := log.String()
	logMu.Unlock()
	fig := func(re string) float64 {
		m := regexp.MustCompile(re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %q in the crawl's output:\n%s", re, out)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	crawled, newV, unchanged, errs := fig(`crawled (\d+) pages`), fig(`new versions +(\d+)`), fig(`unchanged +(\d+)`), fig(`errors +(\d+)`)
	if crawled != pages || errs != pages+1 {
		t.Fatalf("summary: crawled %v, errors %v; want %d and %d (each page; each missing link and /p/%d)\n%s", crawled, errs, pages, pages+1, pages, out)
	}
	for _, c := range []struct {
		name  string
		got   float64
		want  float64
		label []string
	}{
		{"new versions", metric(end, "webtable_crawl_pages_total", "result", "new_version"), newV, nil},
		{"unchanged", metric(end, "webtable_crawl_pages_total", "result", "unchanged"), unchanged, nil},
		{"errors", metric(end, "webtable_crawl_pages_total", "result", "error"), errs, nil},
		{"errors by kind", metric(end, "webtable_crawl_errors_total"), errs, nil},
		{"2xx", metric(end, "webtable_crawl_fetches_total", "class", "2xx"), crawled, nil},
		{"4xx", metric(end, "webtable_crawl_fetches_total", "class", "4xx"), errs, nil},
		{"fetch latencies", metric(end, "webtable_crawl_fetch_seconds"), crawled + errs, nil},
		{"store latencies", metric(end, "webtable_crawl_store_write_seconds"), crawled + errs, nil},
		{"running", metric(end, "webtable_crawl_running"), 0, nil},
	} {
		if c.got != c.want {
			t.Errorf("at the end: %s = %v, want %v (the summary's)", c.name, c.got, c.want)
		}
	}
	if metric(end, "webtable_crawl_bytes_total") <= 0 || metric(end, "webtable_crawl_robots_cached") != 1 {
		t.Errorf("at the end: bytes %v, robots cached %v; want some, and 1", metric(end, "webtable_crawl_bytes_total"), metric(end, "webtable_crawl_robots_cached"))
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
}
