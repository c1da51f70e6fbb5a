package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestContinuousKillNine kills the real crawl binary, crawling
// continuously with every page due again 300ms after its fetch, with
// SIGKILL in its third round, then restarts it in-process: every page
// must be fetched again after the restart, which it is only if its due
// entry (or its frontier entry) survived the kill. Ctrl-C (the context)
// then ends the restarted crawl while it waits for the next due page.
func TestContinuousKillNine(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const extra = 20
	site := newChangingSite(t, extra)
	paths := []string{"/", "/a", "/b"}
	for i := range extra {
		paths = append(paths, "/p/"+itoa(i))
	}
	tmp := t.TempDir()
	bin := buildCrawl(t, tmp)
	db := filepath.Join(tmp, "db")
	args := []string{"--db", db, "--continuous", "--min-interval", "300ms", "--max-interval", "300ms", "--delay", "0", site.srv.URL + "/"}

	killAt := make(chan struct{})
	var once sync.Once
	site.mu.Lock()
	site.onFetch = func(string, int) {
		site.mu.Lock()
		total := 0
		for _, n := range site.fetches {
			total += n
		}
		site.mu.Unlock()
		if total >= 2*len(paths)+len(paths)/2 {
			once.Do(func() { close(killAt) })
		}
	}
	site.mu.Unlock()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-killAt:
	case err := <-exited:
		t.Fatalf("the continuous crawl ended by itself: %v\n%s", err, out.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("60s into the continuous crawl, the site had %d fetches, fewer than its first rounds make (pages never due again?)\n%s", len(paths), out.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited

	// The restart: it must fetch every page again.
	before := map[string]int{}
	site.mu.Lock()
	for _, p := range paths {
		before[p] = site.fetches[p]
	}
	site.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	site.mu.Lock()
	site.onFetch = func(string, int) {
		site.mu.Lock()
		defer site.mu.Unlock()
		for _, p := range paths {
			if site.fetches[p] <= before[p] {
				return
			}
		}
		cancel() // every page fetched again: Ctrl-C
	}
	site.mu.Unlock()
	var rout strings.Builder
	code := runWith(ctx, args, io.Discard, &rout, deps{open: openForCrawl, storeGrace: storeGrace})
	if ctx.Err() == context.DeadlineExceeded {
		var missing []string
		site.mu.Lock()
		for _, p := range paths {
			if site.fetches[p] <= before[p] {
				missing = append(missing, p)
			}
		}
		site.mu.Unlock()
		t.Fatalf("60s after the restart, %d pages were never fetched again (their due entries were lost?): %v\n%s", len(missing), missing, rout.String())
	}
	if code != exitInterrupted {
		t.Errorf("the restarted crawl ended with status %d, want %d (Ctrl-C)\n%s", code, exitInterrupted, rout.String())
	}
}

// itoa is strconv.Itoa.
func itoa(i int) string { return strconv.Itoa(i) }
