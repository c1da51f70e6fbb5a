package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/realweb"
	"github.com/webtable/webtable/internal/spaweb"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/render"
	"github.com/webtable/webtable/webtable"
)

// renderBench gates the rendering figures of docs/rendering.md: a crawl of
// minutes, out of CI.
//
//	WEBTABLE_RENDER_BENCH=1 go test -run TestRenderFigures -v -timeout 30m ./cmd/crawl/
const renderBench = "WEBTABLE_RENDER_BENCH"

// memOf returns the memory, in bytes, of process pid and of the
// processes whose command line holds want: the sum of their proportional
// set sizes (render.PSS), what they use together.
func memOf(pid int, want string) int64 {
	total := render.PSS(pid)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == pid {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(want)) {
			total += render.PSS(p)
		}
	}
	return total
}

// timedCrawl runs the crawl binary and returns its wall time and the peak
// memory of it and its browser together (proportional set sizes),
// sampled every 50 ms.
func timedCrawl(t *testing.T, bin string, args ...string) (time.Duration, int64) {
	t.Helper()
	tmpdir := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmpdir, "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=", "http_proxy=", "https_proxy=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var peak int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				peak = max(peak, memOf(cmd.Process.Pid, "--user-data-dir="+tmpdir))
			}
		}
	})
	err := cmd.Wait()
	took := time.Since(start)
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatalf("crawl %v: %v\n%s", args, err, out.String())
	}
	return took, peak
}

// renderedRows counts the rows of db whose fetch record says rendered, and
// the rows fetched.
func renderedRows(t *testing.T, db string) (rendered, fetched int) {
	t.Helper()
	w, err := stores.Open(t.Context(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Scan(t.Context(), nil, webtable.Query{Family: webtable.FamilyFetch}, 0, func(r webtable.Row) bool {
		f, err := webtable.FetchOf(r)
		if err == nil && f.Fetched() {
			fetched++
			if f.Rendered {
				rendered++
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return rendered, fetched
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestRenderFigures measures what docs/rendering.md reports: rendered pages
// per second on the SPA site with --render-tabs 2 and the peak memory of
// crawler and browser together; and --render auto beside a plain crawl of
// the manuals (runs interleaved, medians), with how many manual pages auto
// renders (each one an error: the manuals need no rendering).
func TestRenderFigures(t *testing.T) {
	if os.Getenv(renderBench) != "1" {
		t.Skipf("set %s=1 to measure the rendering figures (minutes)", renderBench)
	}
	chromiumtest.Need(t)
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	const runs = 3

	site := spaweb.Start(400)
	defer site.Close()
	for i := range runs {
		db := filepath.Join(tmp, fmt.Sprintf("spa%d", i))
		took, peak := timedCrawl(t, bin, "--db", db, "--delay", "0", "--depth", "20", "--render", "always",
			"--render-tabs", "2", "--concurrency", "4", site.URL+"/p/0")
		rendered, fetched := renderedRows(t, db)
		t.Logf("spa run %d: %d pages (%d rendered) in %v: %.1f rendered pages/s; peak memory (PSS) of crawler and browser %d MiB",
			i, fetched, rendered, took.Round(time.Millisecond), float64(rendered)/took.Seconds(), peak>>20)
	}

	w := realweb.Manuals(t)
	for _, m := range []realweb.Manual{realweb.Python, realweb.Postgres} {
		var plain, auto []time.Duration
		for i := range runs {
			for _, mode := range []string{"never", "auto"} {
				db := filepath.Join(tmp, fmt.Sprintf("%s-%s-%d", m.Package, mode, i))
				took, peak := timedCrawl(t, bin, "--db", db, "--proxy", w.Proxy(), "--depth", "100", "--concurrency", "8",
					"--delay", "0s", "--render", mode, m.Seed())
				rendered, fetched := renderedRows(t, db)
				t.Logf("%s --render %s run %d: %d pages in %v, %d rendered, peak PSS %d MiB", m.Package, mode, i, fetched, took.Round(time.Millisecond), rendered, peak>>20)
				if mode == "never" {
					plain = append(plain, took)
				} else {
					auto = append(auto, took)
				}
			}
		}
		t.Logf("%s: median plain %v, median --render auto %v: %.2fx", m.Package, median(plain).Round(time.Millisecond),
			median(auto).Round(time.Millisecond), median(auto).Seconds()/median(plain).Seconds())
	}
}
