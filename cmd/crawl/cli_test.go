package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	emulatorpkg "github.com/webtable/webtable/internal/emulator"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// runCrawl runs the program in-process and returns its exit status and
// output.
func runCrawl(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestParseFlagsMapsOneToOne(t *testing.T) {
	o, err := parseFlags([]string{
		"--db", "x.db", "--depth", "5", "--max-pages", "7", "--concurrency", "3", "--per-host", "1",
		"--delay", "250ms", "--proxy", "http://127.0.0.1:3128", "--ignore-robots", "--user-agent", "me/1",
		"--timeout", "4s", "--max-body", "2MiB", "--allow-domain", "cnn.com", "--allow-domain", "CNNSI.com",
		"--recrawl", "--store-all", "http://www.cnn.com/", "--versions", "5",
	}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := crawler.DefaultConfig()
	want.Depth, want.MaxPages, want.Concurrency, want.PerHost = 5, 7, 3, 1
	want.Delay, want.Proxy, want.IgnoreRobots, want.UserAgent = 250*time.Millisecond, "http://127.0.0.1:3128", true, "me/1"
	want.Timeout, want.MaxBody, want.AllowDomains = 4*time.Second, 2<<20, []string{"cnn.com", "cnnsi.com"}
	want.Recrawl, want.StoreAll = true, true
	if diff := cmp.Diff(want, o.cfg, cmp.Comparer(func(a, b func(crawler.Stats)) bool { return true })); diff != "" {
		t.Errorf("Config (-want +got):\n%s", diff)
	}
	if o.db != "x.db" || o.versions != 5 || len(o.seeds) != 1 || o.seeds[0] != "http://www.cnn.com/" {
		t.Errorf("options = db %q versions %d seeds %v", o.db, o.versions, o.seeds)
	}
}

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(crawler.DefaultConfig(), o.cfg, cmp.Comparer(func(a, b func(crawler.Stats)) bool { return true })); diff != "" {
		t.Errorf("default Config (-want +got):\n%s", diff)
	}
	if o.db != defaultDB {
		t.Errorf("default --db = %q, want %q", o.db, defaultDB)
	}
	if o, _ := parseFlags([]string{"--demo"}, &bytes.Buffer{}); o.db != defaultDemoDB {
		t.Errorf("--demo store = %q, want %q (never the user's %s)", o.db, defaultDemoDB, defaultDB)
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"65536", 65536}, {"10MiB", 10 << 20}, {"500KB", 500000}, {"1kib", 1024}, {"3 GiB", 3 << 30}, {"12B", 12}} {
		if got, err := parseBytes(tc.in); got != tc.want || err != nil {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "ten", "5XB", "99999999999GiB"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("parseBytes(%q): no error", bad)
		}
	}
}

// TestUsageErrors: every bad command line exits 2 with one clear line.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	emptySeeds := filepath.Join(dir, "empty.txt")
	os.WriteFile(emptySeeds, []byte("# nothing here\n\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--depht", "2"}, "flag provided but not defined: -depht"},
		{"bad number", []string{"--depth", "two"}, `invalid value "two" for flag -depth`},
		{"bad duration", []string{"--delay", "5"}, "invalid value \"5\" for flag -delay"},
		{"bad size", []string{"--max-body", "lots"}, `"lots" is not a size in bytes`},
		{"size over a cell", []string{"--max-body", "200MiB"}, "200MiB is more than a stored page can hold (100MiB"},
		{"bad CA file", []string{"--ca-cert", filepath.Join(dir, "nope.pem")}, "reading the CA certificates"},
		{"CA file without PEM", []string{"--ca-cert", emptySeeds}, "holds no PEM certificate"},
		{"bad domain", []string{"--allow-domain", "http://x.com/"}, "is not a domain name"},
		{"no seeds", []string{"--db", filepath.Join(dir, "a.db")}, "no seeds: give URLs, --seeds FILE (e.g. --seeds seeds/default.txt), or try --demo"},
		{"missing seed file", []string{"--db", filepath.Join(dir, "b.db"), "--seeds", filepath.Join(dir, "nope.txt")}, "no such file"},
		{"empty seed file", []string{"--db", filepath.Join(dir, "c.db"), "--seeds", emptySeeds}, "seeds: no seeds in"},
		{"only bad seed arguments", []string{"--db", filepath.Join(dir, "d.db"), "mailto:x@y.z"}, "no usable seed URL"},
		{"negative concurrency", []string{"--db", filepath.Join(dir, "e.db"), "--concurrency", "0", "http://127.0.0.1:1/"}, "concurrency 0 is below 1"},
		{"demo with seeds", []string{"--demo", "http://x.com/"}, "--demo crawls its own sample web"},
		{"versions", []string{"--versions", "0"}, "keep at least 1 version"},
		{"shard timeout", []string{"--shard", "0/2", "--shard-timeout", "0s"}, "--shard-timeout 0s: give a positive duration"},
		{"serve with demo", []string{"--demo", "--serve", "127.0.0.1:0"}, "--serve serves a crawl's store"},
		{"allow-remote alone", []string{"--allow-remote", "http://x.com/"}, "--allow-remote only matters with --serve"},
		{"serve off loopback", []string{"--db", filepath.Join(dir, "f.db"), "--serve", "0.0.0.0:0", "http://127.0.0.1:1/"}, "add --allow-remote to serve there anyway"},
		{"serve a bad address", []string{"--db", filepath.Join(dir, "g.db"), "--serve", "127.0.0.1:notaport", "http://127.0.0.1:1/"}, "cannot open the store"},
		{"serve Cloud Bigtable", []string{"--db", "bigtable://p/i", "--serve", "127.0.0.1:0", "http://127.0.0.1:1/"}, "only a store in a directory can be served"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCrawl(context.Background(), tc.args...)
			if code != exitUsage {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tc.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	code, stdout, _ := runCrawl(context.Background(), "--help")
	if code != exitOK {
		t.Errorf("--help exit status %d, want 0", code)
	}
	for _, want := range []string{"crawl --demo", "-max-pages", "-allow-domain", "-recrawl", "-shard I/N", "Examples:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help does not mention %q:\n%s", want, stdout)
		}
	}
}

// TestStoreInUse: a second crawl on a store held by another gets exit 2
// and a line that says so, and the held store is left alone.
func TestStoreInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	w, err := stores.Open(context.Background(), dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	code, _, stderr := runCrawl(context.Background(), "--db", dir, "http://127.0.0.1:1/")
	if code != exitUsage || !strings.Contains(stderr, "in use by another process") {
		t.Errorf("exit %d, stderr %q; want 2 and 'in use by another process'", code, stderr)
	}
}

// TestDemo runs the README's first command and checks the BigTable
// paper's example row.
func TestDemo(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	dir := filepath.Join(t.TempDir(), "demo.db")
	code, stdout, stderr := runCrawl(context.Background(), "--demo", "--db", dir)
	if code != exitOK {
		t.Fatalf("crawl --demo exit %d\nstderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "query --db "+dir+" get http://www.cnn.com/") {
		t.Errorf("demo does not print the query commands to try with its --db:\n%s", stdout)
	}
	for pass := 1; pass <= demoPasses; pass++ {
		if !strings.Contains(stderr, fmt.Sprintf("pass %d/%d: crawled", pass, demoPasses)) {
			t.Errorf("no summary of pass %d in:\n%s", pass, stderr)
		}
	}
	w, err := stores.Open(context.Background(), dir, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	row, err := w.Get(ctx, "com.cnn.www/", webtable.Query{})
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]string{}
	for _, c := range row.Cells {
		cells[c.Column()] = string(c.Value)
	}
	for col, want := range map[string]string{"anchor:cnnsi.com": "CNN", "anchor:my.look.ca": "CNN.com", "mime:type": "text/html", "fetch:state": "done"} {
		if cells[col] != want {
			t.Errorf("com.cnn.www/ %s = %q, want %q", col, cells[col], want)
		}
	}
	vs, err := w.Versions(ctx, "com.cnn.www/")
	if err != nil || len(vs) != 3 {
		t.Errorf("com.cnn.www/ has %d contents:html versions (err %v), want 3", len(vs), err)
	}
	// Running the demo again recreates its store.
	if code, _, stderr := runCrawl(context.Background(), "--demo", "--db", dir); code != exitUsage || !strings.Contains(stderr, "is not empty") {
		t.Errorf("demo over a non-empty explicit --db: exit %d, %q; want 2 and a refusal", code, stderr)
	}
}

// genSite serves crawlertest's generated site of pages pages on loopback
// until the test ends, with the proxy variables cleared so that the
// crawler and colly reach it directly.
func genSite(tb testing.TB, pages int) *httptest.Server {
	tb.Helper()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		tb.Setenv(k, "")
	}
	srv := crawlertest.GenSite(pages)
	tb.Cleanup(srv.Close)
	return srv
}

// site is a generated web on loopback: page i links to pages i+1..i+fan.
// onRequest, when set, is called with the number of page requests so far.
func site(t *testing.T, pages, fan int, onRequest func(n int64)) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i >= pages {
			http.NotFound(w, r)
			return
		}
		if onRequest != nil {
			onRequest(n.Add(1))
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<title>page %d</title>", i)
		for j := i + 1; j <= i+fan && j < pages; j++ {
			fmt.Fprintf(w, `<a href="/p/%d">page %d</a>`, j, j)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rowStates reads the frontier state of every row.
func rowStates(t *testing.T, dir string) map[string]string {
	t.Helper()
	w, err := stores.Open(context.Background(), dir, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out := map[string]string{}
	err = w.Scan(context.Background(), nil, webtable.Query{Column: "fetch:state"}, 0, func(r webtable.Row) bool {
		out[r.Key] = string(r.Cells[0].Value)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// heldSite is a generated site (page i links to i+1..i+3) whose server
// answers the first free page requests at once and holds every later one
// until release is closed, so that the requests it holds are provably in
// flight for as long as the test wants.
type heldSite struct {
	srv     *httptest.Server
	release chan struct{}
	held    chan string // each held request's path, as it arrives

	mu    sync.Mutex
	paths map[string]int // path -> requests
}

func newHeldSite(t *testing.T, pages, free int) *heldSite {
	t.Helper()
	s := &heldSite{release: make(chan struct{}), held: make(chan string, pages), paths: map[string]int{}}
	var n atomic.Int64
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i >= pages {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.paths[r.URL.Path]++
		s.mu.Unlock()
		if n.Add(1) > int64(free) {
			select {
			case <-s.release:
			default:
				s.held <- r.URL.Path
				<-s.release
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<title>page %d</title>", i)
		for j := i + 1; j <= i+3 && j < pages; j++ {
			fmt.Fprintf(w, `<a href="/p/%d">page %d</a>`, j, j)
		}
	}))
	t.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
		s.srv.Close()
	})
	return s
}

func (s *heldSite) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[path]
}

// TestInterruptAndResume sends SIGINT (Ctrl-C) to the crawl binary while
// the fixture server holds two fetches in flight, releases them only once
// the crawl says it is stopping, and checks that it exits 130 with those
// two pages stored; running again with no seeds resumes the queued
// frontier, finishes the site, and fetches no stored page again.
func TestInterruptAndResume(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const pages, free, concurrency = 60, 10, 2
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	site := newHeldSite(t, pages, free)
	dir := filepath.Join(tmp, "db")
	args := []string{"--db", dir, "--delay", "0", "--depth", "100", "--concurrency", fmt.Sprint(concurrency)}
	cmd := exec.Command(bin, append(args, site.srv.URL+"/p/0")...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var inFlight []string
	for range concurrency {
		inFlight = append(inFlight, <-site.held)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// The crawl has the signal once it says so; only then do the held
	// fetches get their answers.
	var stderr strings.Builder
	sc := bufio.NewScanner(stderrPipe)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "interrupted: storing the pages in flight") {
			break
		}
	}
	close(site.release)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("interrupted crawl: %v, exit %d, want %d\n%s", err, code, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "crawled") || !strings.Contains(stderr.String(), "resumes") {
		t.Errorf("interrupted crawl printed no summary or resume hint:\n%s", stderr.String())
	}
	before := rowStates(t, dir)
	done := 0
	for _, s := range before {
		if s == "done" {
			done++
		}
	}
	if done < free || done == pages {
		t.Fatalf("after the interrupt %d of %d pages are done; want at least the %d answered before it, and not all", done, pages, free)
	}
	for _, p := range inFlight {
		k, _ := urlkey.Key(site.srv.URL + p)
		if before[k] != "done" {
			t.Errorf("page %s was in flight at the interrupt, and is %q after it, want done (stored)", p, before[k])
		}
	}

	code, _, resumed := runCrawl(context.Background(), args...)
	if code != exitOK {
		t.Fatalf("resumed crawl exit %d\n%s", code, resumed)
	}
	if !strings.Contains(resumed, "resuming") {
		t.Errorf("resumed crawl does not say it resumes:\n%s", resumed)
	}
	after := rowStates(t, dir)
	if len(after) != pages {
		t.Errorf("after resuming the table has %d rows, want %d", len(after), pages)
	}
	for i := range pages {
		p := fmt.Sprintf("/p/%d", i)
		k, _ := urlkey.Key(site.srv.URL + p)
		if after[k] != "done" {
			t.Errorf("row %s state %q, want done", k, after[k])
		}
		if n := site.requests(p); n != 1 {
			t.Errorf("%s was fetched %d times, want once (stored pages are not fetched again)", p, n)
		}
	}
}

// TestMaxPagesLeavesTheRestQueued: --max-pages stops the run; what it did
// not fetch stays queued for the next run.
func TestMaxPagesLeavesTheRestQueued(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	srv := site(t, 20, 2, nil)
	dir := filepath.Join(t.TempDir(), "db")
	code, _, stderr := runCrawl(context.Background(), "--db", dir, "--delay", "0", "--depth", "50", "--max-pages", "5", srv.URL+"/p/0")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	states := rowStates(t, dir)
	var done, queued int
	for _, s := range states {
		switch s {
		case "done":
			done++
		case "queued":
			queued++
		}
	}
	if done != 5 || queued == 0 {
		t.Errorf("after --max-pages 5: %d done, %d queued; want 5 done and the rest queued", done, queued)
	}
}

// TestDemoOnCloudBigtable runs the demo crawl into Cloud Bigtable (the
// emulator) and reads the paper's row back through the same --db.
func TestDemoOnCloudBigtable(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	db := "bigtable://demo-project/demo-instance"
	code, _, stderr := runCrawl(context.Background(), "--demo", "--db", db)
	if code != exitOK {
		t.Fatalf("crawl --demo --db %s: exit %d\n%s", db, code, stderr)
	}
	w, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	row, err := w.Get(context.Background(), "com.cnn.www/", webtable.Query{Family: webtable.FamilyAnchor})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]string{}
	for _, c := range row.Cells {
		anchors[c.Qualifier] = string(c.Value)
	}
	if anchors["cnnsi.com"] != "CNN" || anchors["my.look.ca"] != "CNN.com" {
		t.Errorf("anchors of com.cnn.www/ on Cloud Bigtable = %v", anchors)
	}
	if vs, err := w.Versions(context.Background(), "com.cnn.www/"); err != nil || len(vs) != 3 {
		t.Errorf("com.cnn.www/ has %d versions on Cloud Bigtable (err %v), want 3", len(vs), err)
	}
	// A second demo into the same table is refused, not mixed in.
	if code, _, stderr := runCrawl(context.Background(), "--demo", "--db", db); code != exitUsage || !strings.Contains(stderr, "already holds one") {
		t.Errorf("second demo into %s: exit %d, %q", db, code, stderr)
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
	}{{"0/1", 0, 1}, {"0/3", 0, 3}, {"2/3", 2, 3}} {
		if i, n, err := parseShard(tc.in); i != tc.i || n != tc.n || err != nil {
			t.Errorf("parseShard(%q) = %d, %d, %v; want %d, %d", tc.in, i, n, err, tc.i, tc.n)
		}
	}
	for _, bad := range []string{"", "3", "3/3", "-1/3", "1/0", "a/b", "1/3/5"} {
		if _, _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q): no error", bad)
		}
	}
}

// TestShardsOnCloudBigtable runs 3 shards at once, all writing one table
// on Cloud Bigtable (the emulator), each until the whole crawl is done, and
// checks that together they stored exactly the rows of one unsharded
// crawl, fetching no page twice.
func TestShardsOnCloudBigtable(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const hosts, pages, shards = 6, 30, 3
	site := newCrashSite(t, hosts, pages)
	ctx := context.Background()
	// One seed: the other hosts are reached only through cross-host links,
	// which a shard queues for another shard.
	base := []string{"--proxy", site.srv.URL, "--delay", "0", "--depth", "1000", "--shard-timeout", "10s"}
	for h := range hosts {
		base = append(base, "--allow-domain", site.host(h))
	}
	args := func(db string, extra ...string) []string {
		return append(append([]string{"--db", db}, base...), extra...)
	}
	seeds := site.seeds()[:1]

	site.armKill(0, -1)
	if code, _, stderr := runCrawl(ctx, args("bigtable://p/i/single", seeds...)...); code != exitOK {
		t.Fatalf("unsharded crawl: exit %d\n%s", code, stderr)
	}

	db := "bigtable://p/i/sharded"
	site.armKill(1, -1)
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCrawl(ctx, args(db, append([]string{"--shard", fmt.Sprintf("%d/%d", i, shards)}, seeds...)...)...)
			if code != exitOK {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, stderr)
			}
		}()
	}
	wg.Wait()
	for u, runs := range site.requests {
		var sharded []int
		for _, r := range runs {
			if r > 0 {
				sharded = append(sharded, r)
			}
		}
		if len(sharded) != 1 {
			t.Errorf("%s was fetched %d times by the shards (rounds %v), want once", u, len(sharded), sharded)
		}
	}
	read := func(db string) tableState {
		w, err := stores.Open(ctx, db, stores.ForRead, webtable.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ts := tableState{states: map[string]string{}, anchors: map[string]string{}}
		err = w.Scan(ctx, nil, webtable.Query{}, 0, func(r webtable.Row) bool {
			for _, c := range r.Cells {
				switch {
				case c.Column() == "fetch:state":
					ts.states[r.Key] = string(c.Value)
				case c.Family == webtable.FamilyAnchor:
					ts.anchors[r.Key+" "+c.Column()] = string(c.Value)
				}
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	single, sharded := read("bigtable://p/i/single"), read(db)
	if len(single.states) != hosts*pages {
		t.Fatalf("the unsharded crawl stored %d rows, want %d", len(single.states), hosts*pages)
	}
	if diff := diffMaps(single.states, sharded.states); diff != "" {
		t.Errorf("sharded rows differ from one crawl's:\n%s", diff)
	}
	if diff := diffMaps(single.anchors, sharded.anchors); diff != "" {
		t.Errorf("sharded anchors differ from one crawl's:\n%s", diff)
	}
}

// emulator starts Google's in-process Bigtable emulator and points
// BIGTABLE_EMULATOR_HOST at it.
func emulator(t *testing.T) { emulatorpkg.Start(t) }
