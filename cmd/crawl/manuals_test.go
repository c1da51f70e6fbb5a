package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/realweb"
	"github.com/webtable/webtable/urlkey"
)

// manualCrawl is the crawl of issue 30 on a Debian manual served on
// loopback through a proxy that refuses CONNECT (every https URL
// unreachable).
func manualCrawl(bin, db string, w *realweb.Web, concurrency string, seeds ...string) *exec.Cmd {
	args := append([]string{"--db", db, "--proxy", w.Proxy(), "--depth", "100", "--concurrency", concurrency, "--delay", "0s"}, seeds...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	return cmd
}

// storedAll checks that every page of w's oracle is stored, done.
func storedAll(t *testing.T, w *realweb.Web, db string) int {
	t.Helper()
	ts := readTable(t, db)
	var missing []string
	reach := w.Reachable()
	for _, u := range reach {
		if k, _ := urlkey.Key(u); ts.states[k] != "done" {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of the %d pages the http origin serves are not stored, e.g. %v", len(missing), len(reach), missing[:min(5, len(missing))])
	}
	if len(ts.broken) > 0 {
		t.Errorf("torn rows: %v", ts.broken)
	}
	return len(reach)
}

// TestManuals crawls the Python 3.11 and PostgreSQL 15 manuals (Debian's
// python3.11-doc and postgresql-doc-15) as issue 30 found them failing:
// through a proxy that refuses every CONNECT, while the pages link to
// their https URLs as well as to http ones. Every page the http origin
// serves is stored, in a few seconds.
func TestManuals(t *testing.T) {
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	for _, m := range []struct {
		manual      realweb.Manual
		concurrency string
	}{{realweb.Python, "8"}, {realweb.Postgres, "4"}} {
		w := realweb.Manuals(t, m.manual)
		db := filepath.Join(tmp, m.manual.Package+".db")
		start := time.Now()
		out, err := manualCrawl(bin, db, w, m.concurrency, m.manual.Seed()).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", m.manual.Package, err, out)
		}
		took := time.Since(start)
		if !strings.Contains(string(out), "holding back https://") {
			t.Errorf("%s: the refused https origin is not named:\n%s", m.manual.Package, out)
		}
		n := storedAll(t, w, db)
		t.Logf("%s: %d pages crawled in %v", m.manual.Package, n, took)
	}
}

// TestManualKilled is issue 30's PostgreSQL 15 manual crawl killed with
// SIGKILL 10 times at random moments of its first second, restarted after
// each, then run to the end: every page the http origin serves is stored.
//
// A restart gives no seeds, so it resumes from the store alone. A run
// killed before it stored its seed leaves nothing to resume: the next one
// says "no seeds", and the user gives the seed again, as the test does.
func TestManualKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kills and restarts a real crawl 10 times (CI runs it)")
	}
	w := realweb.Manuals(t, realweb.Postgres)
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	db := filepath.Join(tmp, "pg.db")
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill moments from seed %d (replay: go test -run '%s$' ./cmd/crawl -args -crash.seed %d)", seed, t.Name(), seed)
	rng := rand.New(rand.NewPCG(3, seed))
	seeds := []string{realweb.Postgres.Seed()}
	for run := 1; run <= 10; run++ {
		_, noSeeds := runManualCrawl(t, manualCrawl(bin, db, w, "4", seeds...), time.Duration(rng.Int64N(int64(time.Second))))
		seeds = nil
		if noSeeds {
			seeds = []string{realweb.Postgres.Seed()}
		}
	}
	start := time.Now()
	out, noSeeds := runManualCrawl(t, manualCrawl(bin, db, w, "4", seeds...), 0)
	if noSeeds {
		out, _ = runManualCrawl(t, manualCrawl(bin, db, w, "4", realweb.Postgres.Seed()), 0)
	}
	if out != "" {
		t.Fatalf("the run to the end: %s", out)
	}
	n := storedAll(t, w, db)
	t.Logf("after 10 kills, the last run took %v; %d pages stored", time.Since(start), n)
}

// runManualCrawl runs cmd, killed with SIGKILL after killAfter unless that
// is 0. It returns the output of a run that failed on its own ("" for one
// that succeeded or was killed), and whether the run found no seeds: none
// given and nothing queued in the store.
func runManualCrawl(t *testing.T, cmd *exec.Cmd, killAfter time.Duration) (failure string, noSeeds bool) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if killAfter > 0 {
		timer := time.AfterFunc(killAfter, func() { cmd.Process.Kill() })
		defer timer.Stop()
	}
	err := cmd.Wait()
	noSeeds = strings.Contains(out.String(), "no seeds:")
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || noSeeds || (ws.Signaled() && ws.Signal() == syscall.SIGKILL) {
		return "", noSeeds
	}
	return fmt.Sprintf("%v\n%s", err, out.String()), false
}
