package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/realweb"
	"github.com/webtable/webtable/urlkey"
)

// crawlRealWeb runs the real crawl binary over w once, to the end, into
// db, and returns its output.
func crawlRealWeb(t *testing.T, bin, db string, w *realweb.Web, extra ...string) string {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := w.WriteCACert(ca); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--db", db, "--proxy", w.Proxy(), "--ca-cert", ca, "--allow-domain", realweb.Domain,
		"--depth", "1000", "--concurrency", "8", "--per-host", "2", "--timeout", "10s", "--delay", "0"}, extra...)
	cmd := exec.Command(bin, append(args, w.Seeds()...)...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	return string(out)
}

// heldLine matches a line of the crawl's "left queued" list.
var heldLine = regexp.MustCompile(`^\s+(https?://\S+)\s+(\d+)\s+(.*)$`)

// heldBackOf reads the "left queued" list at the end of a crawl's output:
// origin -> entries.
func heldBackOf(out string) map[string]int {
	held := map[string]int{}
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, "left queued"):
			in = true
		case in:
			m := heldLine.FindStringSubmatch(line)
			if m == nil {
				in = false
				continue
			}
			n, _ := strconv.Atoi(m[2])
			held[m[1]] += n
		}
	}
	return held
}

// TestRealWeb crawls a web that looks like the real one (internal/realweb:
// http and https under one host name with real TLS, origins refused,
// closed, reset, failing TLS, redirects across schemes, a page of 3,000
// links) with the real binary: every reachable page is stored once, no
// page is fetched twice, each unreachable origin is listed in the last
// lines with its pages, and no host sees two requests closer than the
// delay, whatever their schemes.
func TestRealWeb(t *testing.T) {
	w, err := realweb.Start(realweb.Config{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	db := filepath.Join(tmp, "real.db")
	const delay = 5 * time.Millisecond
	out := crawlRealWeb(t, bin, db, w, "--delay", delay.String())
	t.Logf("crawl output:\n%s", out)

	ts := readTable(t, db)
	var missing []string
	for _, u := range w.Reachable() {
		k, err := urlkey.Key(u)
		if err != nil {
			t.Fatalf("oracle URL %q: %v", u, err)
		}
		if ts.states[k] != "done" {
			missing = append(missing, fmt.Sprintf("%s (%q)", u, ts.states[k]))
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d reachable pages not stored: %v", len(missing), len(w.Reachable()), missing)
	}
	if len(ts.broken) > 0 {
		t.Errorf("torn rows: %v", ts.broken)
	}
	if twice := w.FetchedTwice(); len(twice) > 0 {
		t.Errorf("pages fetched twice: %v", twice)
	}
	want := w.UnreachableOrigins()
	got := heldBackOf(out)
	if !mapsEqual(got, want) {
		t.Errorf("left queued by origin = %v\nwant the oracle's unreachable origins %v", got, want)
	}
	for _, o := range slices.Sorted(mapKeys(want)) {
		if n := strings.Count(out, "holding back "+o+" "); n != 1 {
			t.Errorf("%s named %d times in the log, want once", o, n)
		}
	}
	for host, gap := range w.MinGaps() {
		if gap < delay {
			t.Errorf("%s saw two requests %v apart, want at least --delay %v", host, gap, delay)
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func mapKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestRealWebKilled kills the real binary with SIGKILL at 10 random moments
// of a crawl of internal/realweb, restarts it after each, then lets a run
// finish: every reachable page stored, no torn row, the rows and anchors
// those of an uninterrupted crawl of the same web, pages fetched twice at
// most those in flight at the kills, and the unreachable origins listed.
func TestRealWebKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kills and restarts a real crawl 10 times (CI runs it)")
	}
	const kills, concurrency = 10, 8
	cfg := realweb.Config{Seed: 11}
	ref, err := realweb.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	refDB := filepath.Join(tmp, "ref.db")
	start := time.Now()
	crawlRealWeb(t, bin, refDB, ref)
	whole := time.Since(start)
	want := readTable(t, refDB)

	w, err := realweb.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ca := filepath.Join(tmp, "ca.pem")
	if err := w.WriteCACert(ca); err != nil {
		t.Fatal(err)
	}
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill moments from seed %d (replay: go test -run '%s$' ./cmd/crawl -args -crash.seed %d); an uninterrupted crawl took %v",
		seed, t.Name(), seed, whole)
	rng := rand.New(rand.NewPCG(2, seed))
	db := filepath.Join(tmp, "killed.db")
	for run := 1; run <= kills; run++ {
		args := []string{"--db", db, "--proxy", w.Proxy(), "--ca-cert", ca, "--allow-domain", realweb.Domain,
			"--depth", "1000", "--concurrency", strconv.Itoa(concurrency), "--per-host", "2", "--timeout", "10s", "--delay", "0"}
		if run == 1 {
			args = append(args, w.Seeds()...)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A random moment within the first half of an uninterrupted
		// crawl's time, so that most runs die before they could finish.
		at := time.Duration(rng.Int64N(int64(whole/2))) + 20*time.Millisecond
		timer := time.AfterFunc(at, func() { cmd.Process.Kill() })
		cmd.Wait()
		timer.Stop()
		if w.TotalPageRequests() == 0 {
			continue // killed before its store or its first request: nothing to check yet
		}
		if now := readTable(t, db); len(now.broken) > 0 {
			t.Fatalf("after the kill at %v of run %d, torn rows: %v", at, run, now.broken)
		}
	}
	out := crawlRealWeb(t, bin, db, w)
	got := readTable(t, db)
	if diff := diffMaps(want.states, got.states); diff != "" {
		t.Errorf("after %d kills the rows' states differ from an uninterrupted crawl:\n%s", kills, diff)
	}
	if diff := diffMaps(want.anchors, got.anchors); diff != "" {
		t.Errorf("after %d kills the anchors differ from an uninterrupted crawl:\n%s", kills, diff)
	}
	for _, u := range w.Reachable() {
		if k, _ := urlkey.Key(u); got.states[k] != "done" {
			t.Errorf("reachable page %s is %q after the kills, want done", u, got.states[k])
		}
	}
	// NB: a page is fetched again only when a kill came between its fetch
	// and its save: at most the fetches in flight and the saves under way
	// (twice as many workers as fetch slots) at each kill.
	if twice, limit := w.FetchedTwice(), kills*2*concurrency; len(twice) > limit {
		t.Errorf("%d pages fetched twice over %d kills, more than the %d that can be in flight: %v", len(twice), kills, limit, twice)
	} else {
		t.Logf("%d pages fetched twice over %d kills", len(twice), kills)
	}
	if held := heldBackOf(out); !mapsEqual(held, w.UnreachableOrigins()) {
		t.Errorf("the last run's list of what it left queued = %v, want %v\n%s", held, w.UnreachableOrigins(), out)
	}
}
