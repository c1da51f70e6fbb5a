package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// manyHostWeb is a generated web of hosts h0000.web.test ... behind one
// loopback server used as the crawler's proxy. Page i of host h links to
// page i+1 of its host and to page i of hosts 2h+1 and 2h+2, so one seed
// reaches every page in a few hops, most of them across hosts (and so
// across shards). It records the User-Agent of every page request.
type manyHostWeb struct {
	hosts, pages int
	unlinked     int // hosts served after the linked ones that no page links to; set before crawling
	srv          *httptest.Server

	mu      sync.Mutex
	fetches map[string][]string // URL -> User-Agents, in order
	onFetch func(ua string)     // called outside mu after each page request
}

func newManyHostWeb(t *testing.T, hosts, pages int) *manyHostWeb {
	s := &manyHostWeb{hosts: hosts, pages: pages, fetches: map[string][]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *manyHostWeb) host(h int) string { return fmt.Sprintf("h%04d.web.test", h) }

func (s *manyHostWeb) serve(w http.ResponseWriter, r *http.Request) {
	var h, i int
	if _, err := fmt.Sscanf(r.Host, "h%d.web.test", &h); err != nil || h >= s.hosts+s.unlinked {
		http.Error(w, "no such host", http.StatusBadGateway)
		return
	}
	if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i >= s.pages {
		http.NotFound(w, r) // robots.txt too: everything allowed
		return
	}
	ua := r.Header.Get("User-Agent")
	s.mu.Lock()
	u := "http://" + r.Host + r.URL.Path
	s.fetches[u] = append(s.fetches[u], ua)
	hook := s.onFetch
	s.mu.Unlock()
	if hook != nil {
		hook(ua)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html><title>%s page %d</title>", r.Host, i)
	if i+1 < s.pages {
		fmt.Fprintf(w, `<a href="/p/%d">next</a>`, i+1)
	}
	for _, c := range []int{2*h + 1, 2*h + 2} {
		if c < s.hosts {
			fmt.Fprintf(w, ` <a href="http://%s/p/%d">over there</a>`, s.host(c), i)
		}
	}
}

// check fails unless every page was fetched, each only by the shard of its
// host (User-Agent "shard-I"), and at most once except the URLs allowed
// to have been fetched again.
func (s *manyHostWeb) check(t *testing.T, shards int, again func(url string, uas []string) bool) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.fetches) != s.hosts*s.pages {
		t.Errorf("%d pages fetched, want all %d", len(s.fetches), s.hosts*s.pages)
	}
	twice := 0
	for u, uas := range s.fetches {
		host := strings.TrimPrefix(u, "http://")
		host, _, _ = strings.Cut(host, "/")
		want := fmt.Sprintf("shard-%d", crawlstore.ShardOf(host, shards))
		for _, ua := range uas {
			if !strings.HasPrefix(ua, want) {
				t.Errorf("%s (host of shard %s) was fetched by %s", u, want, ua)
			}
		}
		if len(uas) > 1 {
			twice++
			if again == nil || !again(u, uas) {
				t.Errorf("%s was fetched %d times (%v), want once", u, len(uas), uas)
			}
		}
	}
	t.Logf("%d pages, %d fetched more than once", len(s.fetches), twice)
}

// shardArgs is the command line of shard i of n. NB: --per-host 1, since
// two fetches of one host at once can both fetch a URL that two pages
// saved at the same moment queued twice (both ask the store before either
// is stored): a race of the crawler's frontier, not of sharding, which
// these tests would otherwise report now and then as a page fetched twice.
func shardArgs(web *manyHostWeb, db string, i, n int, extra ...string) []string {
	args := []string{"--db", db, "--proxy", web.srv.URL, "--delay", "0", "--depth", "1000",
		"--concurrency", "4", "--per-host", "1", "--allow-domain", "web.test", "--user-agent", fmt.Sprintf("shard-%d", i),
		"--shard", fmt.Sprintf("%d/%d", i, n)}
	return append(append(args, extra...), "http://"+web.host(0)+"/p/0")
}

// TestShardsRunUntilDone starts 4 shards at once from one seed over 200
// hosts: each runs until the whole crawl is done and exits 0 by itself,
// every page is fetched exactly once, by the shard of its host.
func TestShardsRunUntilDone(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const hosts, pages, shards = 200, 2, 4
	web := newManyHostWeb(t, hosts, pages)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	begin := time.Now()
	defer func() {
		t.Logf("4 shards crawled %d pages and agreed they were done in %v", hosts*pages, time.Since(begin))
	}()
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCrawl(ctx, shardArgs(web, "bigtable://p/i/t", i, shards, "--shard-timeout", "10s")...)
			if code != exitOK {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, stderr)
			}
			if want := fmt.Sprintf("the whole crawl is finished: %d shards fetched %d pages", shards, hosts*pages); !strings.Contains(stderr, want) {
				t.Errorf("shard %d/%d does not say %q:\n%s", i, shards, want, stderr)
			}
		}()
	}
	wg.Wait()
	web.check(t, shards, nil)

	// A shard started again after the end (a restarted pod) finishes too,
	// fetching nothing, without waiting for the others that stopped.
	code, _, stderr := runCrawl(ctx, shardArgs(web, "bigtable://p/i/t", 2, shards, "--shard-timeout", "10s")...)
	if code != exitOK || !strings.Contains(stderr, "the whole crawl is finished") {
		t.Errorf("shard 2/4 started again after the end: exit %d\n%s", code, stderr)
	}
	web.check(t, shards, nil)
}

// TestShardsMaxPagesPerHost: pages left queued on purpose (their host has
// its --max-pages-per-host) do not keep the shards from finishing.
func TestShardsMaxPagesPerHost(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const hosts, pages, shards = 100, 3, 4
	web := newManyHostWeb(t, hosts, pages)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCrawl(ctx, shardArgs(web, "bigtable://p/i/t", i, shards, "--shard-timeout", "10s", "--max-pages-per-host", "1")...)
			if code != exitOK {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, stderr)
			}
		}()
	}
	wg.Wait()
	web.mu.Lock()
	defer web.mu.Unlock()
	perHost := map[string]int{}
	for u, uas := range web.fetches {
		host, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
		perHost[host] += len(uas)
	}
	if len(perHost) != hosts {
		t.Errorf("%d hosts fetched, want all %d", len(perHost), hosts)
	}
	for h, n := range perHost {
		if n != 1 {
			t.Errorf("%s: %d pages fetched with --max-pages-per-host 1", h, n)
		}
	}
}

// TestShardSilentMakesOthersExit3: with shard 3 of 4 never started, the
// others crawl their part, then exit 3 within --shard-timeout (plus the
// time to crawl) naming it and how many of its pages are queued.
func TestShardSilentMakesOthersExit3(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const hosts, pages, shards = 60, 1, 4
	web := newManyHostWeb(t, hosts, pages)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range shards - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCrawl(ctx, shardArgs(web, "bigtable://p/i/t", i, shards, "--shard-timeout", "2s")...)
			if code != exitShardGone {
				t.Errorf("shard %d/%d: exit %d, want %d\n%s", i, shards, code, exitShardGone, stderr)
			}
			if !strings.Contains(stderr, "shard 3/4 has been silent for more than --shard-timeout 2s (it never started)") ||
				!strings.Contains(stderr, "of its pages are still queued") {
				t.Errorf("shard %d/%d does not name shard 3/4 and its queued pages:\n%s", i, shards, stderr)
			}
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the shards took %v to give up on a silent shard with --shard-timeout 2s", d)
	}
	web.mu.Lock()
	defer web.mu.Unlock()
	for u, uas := range web.fetches {
		for _, ua := range uas {
			if ua == "shard-3" {
				t.Errorf("%s fetched by the shard that never ran", u)
			}
		}
	}
}

// TestShardStoreUnreachable: a shard whose store does not answer says so,
// retries, and gives up with exit 1 after --shard-timeout; it never says
// the crawl is finished.
func TestShardStoreUnreachable(t *testing.T) {
	t.Setenv("BIGTABLE_EMULATOR_HOST", "127.0.0.1:1") // nothing listens there
	code, _, stderr := runCrawl(context.Background(), "--db", "bigtable://p/i/t", "--shard", "0/2", "--shard-timeout", "2s", "http://h0000.web.test/")
	if code != exitStoreFailed {
		t.Errorf("exit %d, want %d\n%s", code, exitStoreFailed, stderr)
	}
	if !strings.Contains(stderr, "cannot reach the store") || !strings.Contains(stderr, "the crawl is not finished") {
		t.Errorf("stderr does not say the store is unreachable and the crawl unfinished:\n%s", stderr)
	}
	if strings.Contains(stderr, "whole crawl is finished") {
		t.Errorf("a shard without a store said the crawl is finished:\n%s", stderr)
	}
}

// TestShardKilled runs 4 shards as processes and kills shard 1 with
// SIGKILL in the middle of the crawl.
//
//   - restarted: shard 1 is started again; all four exit 0, nothing is
//     lost, and no page is fetched twice except those shard 1 had in
//     flight when it was killed;
//   - never restarted: the other three exit 3 within --shard-timeout plus
//     a minute, naming it.
func TestShardKilled(t *testing.T) {
	bin := buildCrawl(t, t.TempDir())
	t.Run("restarted", func(t *testing.T) { testShardKilled(t, bin, true) })
	t.Run("never restarted", func(t *testing.T) { testShardKilled(t, bin, false) })
}

func testShardKilled(t *testing.T, bin string, restart bool) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const hosts, pages, shards, victim, timeout = 200, 2, 4, 1, 8 * time.Second
	web := newManyHostWeb(t, hosts, pages)
	kill := make(chan struct{})
	var once sync.Once
	n := 0
	// NB: set under the lock its reader takes: the server's goroutines
	// started before this, and nothing else orders the two.
	web.mu.Lock()
	web.onFetch = func(ua string) {
		if ua != fmt.Sprintf("shard-%d", victim) {
			return
		}
		web.mu.Lock()
		n++
		trigger := n == 30
		web.mu.Unlock()
		if trigger {
			once.Do(func() { close(kill) })
		}
	}
	web.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := func(i int, extra ...string) (*exec.Cmd, *bytes.Buffer) {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, shardArgs(web, "bigtable://p/i/t", i, shards, append([]string{"--shard-timeout", timeout.String()}, extra...)...)...)
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	cmds := make([]*exec.Cmd, shards)
	outs := make([]*bytes.Buffer, shards)
	for i := range shards {
		cmds[i], outs[i] = start(i)
	}
	select {
	case <-kill:
	case <-ctx.Done():
		t.Fatal("shard 1 never fetched 30 pages")
	}
	cmds[victim].Process.Signal(syscall.SIGKILL)
	cmds[victim].Wait()
	killed := time.Now()
	if !restart {
		for i, cmd := range cmds {
			if i == victim {
				continue
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitShardGone {
				t.Errorf("shard %d/%d: %v, want exit status %d\n%s", i, shards, err, exitShardGone, outs[i])
			}
			if want := fmt.Sprintf("shard %d/%d has been silent for more than --shard-timeout %v", victim, shards, timeout); !strings.Contains(outs[i].String(), want) {
				t.Errorf("shard %d/%d does not say %q:\n%s", i, shards, want, outs[i])
			}
		}
		t.Logf("the other shards exited 3 %v after the kill (--shard-timeout %v)", time.Since(killed), timeout)
		if d := time.Since(killed); d > timeout+time.Minute {
			t.Errorf("the shards took %v after the kill to give up, more than --shard-timeout %v plus a minute", d, timeout)
		}
		return
	}
	// NB: the restarted victim has a User-Agent of its own. Telling the
	// two apart by when the server recorded a request (a phase switched
	// after the kill) mislabelled, now and then, a request the killed
	// process had sent but the server handled only after the switch: that
	// page then showed as fetched twice after the restart (reproduced by
	// delaying the server's handling of the victim's requests by 30 ms:
	// 2 such pages in each of 3 runs).
	restarted := fmt.Sprintf("shard-%d-restarted", victim)
	cmds[victim], outs[victim] = start(victim, "--user-agent", restarted)
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("shard %d/%d: %v\n%s", i, shards, err, outs[i])
		}
	}
	inFlight := 0
	web.check(t, shards, func(u string, uas []string) bool {
		// Fetched by the victim before the kill, then again after.
		ok := len(uas) == 2 && uas[0] == fmt.Sprintf("shard-%d", victim) && uas[1] == restarted
		if ok {
			inFlight++
		}
		return ok
	})
	// NB: at the kill, at most --concurrency 4 pages were being fetched
	// and as many more stored (a worker stores its page while another
	// fetches): those are the pages fetched again.
	if inFlight > 2*4 {
		t.Errorf("%d pages fetched again after the restart, more than the 8 (twice --concurrency) in progress at the kill", inFlight)
	}
}

// TestShardsShareMaxPages: --max-pages holds for the whole crawl, all
// shards together, not for each.
func TestShardsShareMaxPages(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	const hosts, pages, shards, limit = 200, 2, 4, 60
	web := newManyHostWeb(t, hosts, pages)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCrawl(ctx, shardArgs(web, "bigtable://p/i/t", i, shards, "--shard-timeout", "10s", "--max-pages", fmt.Sprint(limit))...)
			if code != exitOK {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, stderr)
			}
		}()
	}
	wg.Wait()
	web.mu.Lock()
	defer web.mu.Unlock()
	n := 0
	for _, uas := range web.fetches {
		n += len(uas)
	}
	if n != limit {
		t.Errorf("the shards fetched %d pages with --max-pages %d, want exactly %d", n, limit, limit)
	}
}

// TestHelpHasNoRounds: the help no longer asks the operator to run the
// shards again in rounds, and documents --shard-timeout and exit status 3.
func TestHelpHasNoRounds(t *testing.T) {
	_, stdout, _ := runCrawl(context.Background(), "--help")
	stdout = strings.Join(strings.Fields(stdout), " ")
	if strings.Contains(strings.ToLower(stdout), "round") {
		t.Errorf("--help still speaks of rounds:\n%s", stdout)
	}
	for _, want := range []string{"-shard-timeout", "until the whole crawl is finished", "exit status 3"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help does not say %q:\n%s", want, stdout)
		}
	}
}

// flakyTable is a WebTable's table that fails every call while down is
// set, as a store that cannot be reached does.
type flakyTable struct {
	webtable.Table
	down    atomic.Bool
	calls   atomic.Int64 // calls so far
	fails   atomic.Int64 // calls refused
	after   int64        // the store goes down at this call...
	downFor time.Duration
	once    sync.Once
}

var errUnreachable = errors.New("store unreachable (test)")

func (f *flakyTable) check() error {
	if f.calls.Add(1) == f.after {
		f.once.Do(func() {
			f.down.Store(true)
			time.AfterFunc(f.downFor, func() { f.down.Store(false) })
		})
	}
	if f.down.Load() {
		f.fails.Add(1)
		return errUnreachable
	}
	return nil
}

func (f *flakyTable) Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error {
	if err := f.check(); err != nil {
		return err
	}
	return f.Table.Apply(ctx, row, m, opts...)
}

func (f *flakyTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return f.Table.ApplyBulk(ctx, rows, muts)
}

func (f *flakyTable) ReadRow(ctx context.Context, row string, opts ...bigtable.ReadOption) (bigtable.Row, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return f.Table.ReadRow(ctx, row, opts...)
}

func (f *flakyTable) ReadRows(ctx context.Context, rs bigtable.RowSet, fn func(bigtable.Row) bool, opts ...bigtable.ReadOption) error {
	if err := f.check(); err != nil {
		return err
	}
	return f.Table.ReadRows(ctx, rs, fn, opts...)
}

func (f *flakyTable) ApplyReadModifyWrite(ctx context.Context, row string, m *bigtable.ReadModifyWrite) (bigtable.Row, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return f.Table.ApplyReadModifyWrite(ctx, row, m)
}

// TestShardStoreFailsMidCrawl: two shards share a store that stops
// answering for a while in the middle of the crawl. They say so, retry with
// backoff, and finish the crawl once it answers again: every page
// fetched, none twice beyond those in flight.
func TestShardStoreFailsMidCrawl(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	ctx := context.Background()
	const hosts, pages, shards = 40, 2, 2
	web := newManyHostWeb(t, hosts, pages)
	db, err := bigtable.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tbl := &flakyTable{Table: db.Open(webtable.TableName), after: 150, downFor: 700 * time.Millisecond}
	w, err := webtable.New(ctx, db, tbl, true, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, shards)
	for i := range shards {
		o, err := parseFlags(shardArgs(web, "unused", i, shards, "--shard-timeout", "10s"), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := crawlShard(ctx, o, w, o.seeds, &outs[i]); err != nil {
				t.Errorf("shard %d/%d: %v\n%s", i, shards, err, &outs[i])
			}
		}()
	}
	wg.Wait()
	if tbl.fails.Load() == 0 {
		t.Fatalf("the store never failed (%d calls): the test proves nothing", tbl.calls.Load())
	}
	said := false
	for i := range outs {
		said = said || strings.Contains(outs[i].String(), "cannot reach the store") || strings.Contains(outs[i].String(), "cannot write a heartbeat")
	}
	if !said {
		t.Errorf("no shard said the store failed (%d calls refused):\n%s\n%s", tbl.fails.Load(), &outs[0], &outs[1])
	}
	// A page whose fetch was stored but whose done mark failed is fetched
	// again: at most the pages in progress when it went down, 4 per shard
	// being fetched and as many being stored.
	again := 0
	web.check(t, shards, func(string, []string) bool { again++; return again <= 2*4*shards })
	t.Logf("%d calls refused while the store was down; %d pages fetched again", tbl.fails.Load(), again)
}

// lineWriter hands each complete line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte
	all   strings.Builder
	lines chan string
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.Write(p)
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case l.lines <- string(l.buf[:i]):
		default:
		}
		l.buf = l.buf[i+1:]
	}
}

func (l *lineWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// TestShardsOnServedStore runs several crawl processes of one machine on
// one store in a directory, served by "crawl --serve" and reached through
// --db bigtable://... and BIGTABLE_EMULATOR_HOST, as the README shows.
func TestShardsOnServedStore(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const hosts, pages, shards = 100, 2, 3
	web := newManyHostWeb(t, hosts, pages)
	dir := filepath.Join(t.TempDir(), "webtable.db")
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	out := &lineWriter{lines: make(chan string, 100)}
	served := make(chan int, 1)
	go func() {
		served <- runCrawlTo(serveCtx, out, "--db", dir, "--serve", "127.0.0.1:0")
	}()
	var addr string
	for addr == "" {
		select {
		case line := <-out.lines:
			if rest, ok := strings.CutPrefix(line, "serving "+dir+" on "); ok {
				addr = strings.Fields(rest)[0]
			}
		case code := <-served:
			t.Fatalf("crawl --serve exited %d before serving:\n%s", code, out)
		case <-time.After(time.Minute):
			t.Fatalf("crawl --serve did not say where it serves:\n%s", out)
		}
	}
	t.Setenv("BIGTABLE_EMULATOR_HOST", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCrawl(ctx, shardArgs(web, "bigtable://local/store", i, shards, "--shard-timeout", "10s")...)
			if code != exitOK || !strings.Contains(stderr, "the whole crawl is finished") {
				t.Errorf("shard %d/%d: exit %d\n%s", i, shards, code, stderr)
			}
		}()
	}
	wg.Wait()
	stopServing()
	if code := <-served; code != exitOK {
		t.Errorf("crawl --serve: exit %d after Ctrl-C\n%s", code, out)
	}
	web.check(t, shards, nil)
}

// runCrawlTo runs the program in-process with stderr going to w, and
// returns its exit status.
func runCrawlTo(ctx context.Context, w io.Writer, args ...string) int {
	return run(ctx, args, io.Discard, w)
}
