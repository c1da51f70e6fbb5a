package render

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/spaweb"
)

// checkHung stops the pool's browser process (SIGSTOP: it is there but no
// longer answers, as a hung browser) and renders a page in each tab: the
// pool finds it does not answer, kills its group (stopped processes
// included) and starts another, where the pages render; no render waits
// past its timeout, the check and a restart.
func checkHung(t *testing.T, pool *Pool, site *spaweb.Site) {
	// NB: a tab in each slot first, so that the renders meet the hang in
	// their page, not in opening a tab (which is given up after 10 s).
	renderAll(t, pool, site, "before the hang")
	pgid, restarts := pool.PGID(), pool.Restarts()
	if err := syscall.Kill(pgid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// NB: killed by the pool; if not, by this, so no stopped browser
	// outlives the test.
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	start := time.Now()
	renderAll(t, pool, site, "with the browser hung")
	// The timeout, the 2 s check, a restart and a render: 15 s is ample
	// even under -race on a loaded machine.
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the renders took %v with the browser hung", took)
	}
	if pool.Restarts() != restarts+1 || pool.PGID() == pgid {
		t.Errorf("after the browser hung: %d restarts, group %d (was %d); want %d and a new group", pool.Restarts(), pool.PGID(), pgid, restarts+1)
	}
	// NB: a poll: the killed processes are not this test's children.
	for deadline := time.Now().Add(5 * time.Second); len(groupProcs(pgid)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of the hung browser still there", groupProcs(pgid))
		}
	}
}

// renderAll renders three tree pages at once, one in each tab of pool,
// and checks their DOMs.
func renderAll(t *testing.T, pool *Pool, site *spaweb.Site, when string) {
	t.Helper()
	var wg sync.WaitGroup
	for _, p := range []string{"/p/0", "/p/1", "/p/2"} {
		wg.Go(func() {
			res, err := pool.Render(context.Background(), shellOf(t, site, p))
			if err != nil {
				t.Errorf("Render(%s) %s: %v, want it rendered", p, when, err)
			} else if !strings.Contains(string(res.DOM), "Text of "+p) {
				t.Errorf("Render(%s) %s: DOM %q", p, when, res.DOM)
			}
		})
	}
	wg.Wait()
}
