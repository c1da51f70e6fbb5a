package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// buildQuery returns the query binary, built once for the package's
// tests (bins_test.go); dir is not used.
func buildQuery(t *testing.T, dir string) string {
	t.Helper()
	return sharedBin(t, "query")
}

// fetchedBy runs "query --db db stats --json" and returns the pages
// fetched.
func fetchedBy(t *testing.T, queryBin, db string) int64 {
	t.Helper()
	out, err := exec.Command(queryBin, "--db", db, "stats", "--json").CombinedOutput()
	if err != nil {
		t.Fatalf("query stats on the live crawl: %v\n%s", err, out)
	}
	var s struct {
		Fetched int64 `json:"fetched"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &s); err != nil {
		t.Fatalf("query stats --json printed %q: %v", out, err)
	}
	return s.Fetched
}

// allRows reads every cell of every row of a WebTable.
func allRows(t *testing.T, w *webtable.WebTable) []webtable.Row {
	t.Helper()
	var rows []webtable.Row
	if err := w.Scan(context.Background(), nil, webtable.Query{Versions: -1}, 0, func(r webtable.Row) bool {
		rows = append(rows, r)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestServeLiveCrawl runs the real "crawl --serve" binary over a loopback
// web that holds its requests after the first 100, reads the store while
// the crawl holds it (with the query binary and with the Go client through
// internal/stores), lets the crawl finish, reads again, stops the binary
// with SIGINT and checks it exits 0 within 5 seconds, and that what was
// read through the server at the end equals what is read at rest.
func TestServeLiveCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the crawl and query binaries (CI runs it)")
	}
	const hosts, pages, firstPass = 3, 150, 100
	tmp := t.TempDir()
	crawlBin, queryBin := buildCrawl(t, tmp), buildQuery(t, tmp)
	site := newCrashSite(t, hosts, pages)
	gate := make(chan struct{})    // closed: let every request through
	blocked := make(chan struct{}) // closed when a request first waits
	var once sync.Once
	var mu sync.Mutex
	served := 0
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		n := served
		mu.Unlock()
		if n > firstPass && r.URL.Path != "/robots.txt" {
			once.Do(func() { close(blocked) })
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		site.serve(w, r)
	}))
	t.Cleanup(proxy.Close)
	t.Cleanup(func() { // a failed test must not leave requests waiting
		select {
		case <-gate:
		default:
			close(gate)
		}
	})

	db := filepath.Join(tmp, "live.db")
	args := append([]string{"--db", db, "--proxy", proxy.URL, "--delay", "0", "--depth", "10000",
		"--concurrency", "4", "--per-host", "2", "--serve", "127.0.0.1:0"}, site.seeds()...)
	cmd := exec.Command(crawlBin, args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
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
			if rest, ok := strings.CutPrefix(line, "serving "+db+" on "); ok {
				addrC <- strings.Fields(rest)[0]
			}
			if strings.Contains(line, "the crawl is over") {
				close(overC)
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	logText := func() string { logMu.Lock(); defer logMu.Unlock(); return log.String() }

	var addr string
	select {
	case addr = <-addrC:
	case err := <-exited:
		t.Fatalf("crawl exited before serving: %v\n%s", err, logText())
	}
	if !stores.IsLoopback(addr) {
		t.Errorf("crawl serves on %s, want loopback", addr)
	}

	// While the crawl holds the store, mid-crawl.
	<-blocked
	first := fetchedBy(t, queryBin, db)
	if first == 0 || first > firstPass {
		t.Errorf("query read %d fetched pages mid-crawl, want 1..%d", first, firstPass)
	}
	live, err := stores.Open(t.Context(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatalf("opening the live store through internal/stores: %v", err)
	}
	defer live.Close()
	if rows := allRows(t, live); len(rows) == 0 {
		t.Error("the Go client read no rows mid-crawl")
	}

	// The crawl finishes and keeps serving.
	close(gate)
	select {
	case <-overC:
	case err := <-exited:
		t.Fatalf("crawl exited instead of serving on: %v\n%s", err, logText())
	}
	if second := fetchedBy(t, queryBin, db); second != hosts*pages {
		t.Errorf("query read %d fetched pages after the crawl (%d mid-crawl), want %d", second, first, hosts*pages)
	}
	atEnd := allRows(t, live)
	live.Close()

	// SIGINT: exit 0 within 5 seconds, store closed, endpoint file gone.
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("crawl --serve after SIGINT: %v, want exit status 0\n%s", err, logText())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("crawl --serve still runs 10 s after SIGINT\n%s", logText())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("crawl --serve took %v to exit after SIGINT, want at most 5 s", d)
	}
	if _, err := os.Stat(filepath.Join(db, stores.EndpointFile)); !os.IsNotExist(err) {
		t.Errorf("the endpoint file is still there after the crawl exited: %v", err)
	}
	rest, err := stores.Open(t.Context(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rest.Close()
	atRest := allRows(t, rest)
	if len(atRest) < hosts*pages {
		t.Fatalf("%d rows at rest, want at least %d", len(atRest), hosts*pages)
	}
	if !reflect.DeepEqual(atEnd, atRest) {
		t.Errorf("rows read through the server at the end (%d) differ from those read at rest (%d)", len(atEnd), len(atRest))
		for i := range min(len(atEnd), len(atRest)) {
			if !reflect.DeepEqual(atEnd[i], atRest[i]) {
				t.Errorf("first difference, row %d:\n served %v\nat rest %v", i, atEnd[i], atRest[i])
				break
			}
		}
	}
}
