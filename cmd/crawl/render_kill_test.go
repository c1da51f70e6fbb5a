package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/spaweb"
)

// browserProcs lists the processes whose command line names a user data
// directory under dir: the browser processes of one crawl run.
func browserProcs(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("--user-data-dir="+dir)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
				continue // a zombie runs nothing
			}
		}
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline[:min(len(cmdline), 80)]), "\x00", " "))
	}
	return out
}

// waitNoBrowser waits until no browser process of dir is left, up to 10 s.
// NB: a poll: the processes are not this test's children, so nothing
// signals their end.
func waitNoBrowser(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := browserProcs(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d browser processes left 10 s after the crawl ended:\n%s", len(left), strings.Join(left, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leakyBrowser is a browser program that starts chromium with a child of
// its own that nothing but a kill of the process group ends: the
// subshell keeps the script's command line (its --user-data-dir), and
// ignores the browser's end. Chromium's own processes end when its
// DevTools pipe closes; this one proves the group is killed.
const leakyBrowser = `#!/bin/sh
( trap '' TERM HUP INT; while :; do sleep 1; done ) &
exec /usr/bin/chromium "$@"
`

// TestRenderKill runs the crawl binary with --render always on the SPA
// site's endless page and ends it while that page is rendering: SIGKILL
// leaves no browser process behind (the watcher kills the group), and so
// does Ctrl-C, which exits 130 with the page still queued; the next run
// resumes and renders it, and only it, again.
func TestRenderKill(t *testing.T) {
	t.Parallel()
	chromiumtest.Need(t)
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	browser := filepath.Join(tmp, "browser")
	if err := os.WriteFile(browser, []byte(leakyBrowser), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			// NB: the two runs share nothing but the binary: at once, they
			// take the time of one.
			t.Parallel()
			site := spaweb.Start(1)
			defer site.Close()
			run := filepath.Join(tmp, fmt.Sprint(int(sig)))
			tmpdir := filepath.Join(run, "tmp")
			if err := os.MkdirAll(tmpdir, 0o755); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(run, "db")
			args := []string{"--db", db, "--delay", "0", "--depth", "0", "--render", "always", "--render-timeout", "60s", "--render-browser", browser}
			cmd := exec.Command(bin, append(args, site.URL+"/", site.URL+"/scroll")...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmpdir, "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			select {
			case <-site.Requested("/api/page?path=%2Fscroll"):
			case <-time.After(60 * time.Second):
				t.Fatalf("the endless page was not rendered within 60 s\n%s", stderr.String())
			}
			if n := len(browserProcs(tmpdir)); n == 0 {
				t.Fatalf("no browser process of the run found under %s: the test would prove nothing", tmpdir)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			waitNoBrowser(t, tmpdir)
			if sig != syscall.SIGINT {
				return
			}
			if cmd.ProcessState.ExitCode() != exitInterrupted {
				t.Fatalf("crawl after Ctrl-C: %v, want exit %d\n%s", err, exitInterrupted, stderr.String())
			}
			first := rowStates(t, db)
			if st := first[mustKey(t, site.URL+"/scroll")]; st != "queued" {
				t.Errorf("the page rendering at Ctrl-C is %q, want queued", st)
			}
			rootHits := site.Hits("/")
			again := exec.Command(bin, "--db", db, "--delay", "0", "--depth", "0", "--render", "always", "--render-timeout", "1s")
			again.Env = cmd.Env
			if out, err := again.CombinedOutput(); err != nil {
				t.Fatalf("resumed crawl: %v\n%s", err, out)
			}
			waitNoBrowser(t, tmpdir)
			if st := rowStates(t, db)[mustKey(t, site.URL+"/scroll")]; st != "done" {
				t.Errorf("after the resumed crawl the page is %q, want done", st)
			}
			if n := site.Hits("/scroll"); n != 2 {
				t.Errorf("/scroll fetched %d times, want 2 (once per run)", n)
			}
			// / may have been in flight too; if it was done, it is not
			// fetched again.
			if first[mustKey(t, site.URL+"/")] == "done" && site.Hits("/") != rootHits {
				t.Errorf("the resumed crawl fetched / again: it was done")
			}
		})
	}
}
