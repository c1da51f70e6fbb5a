package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/spaweb"
)

// twoShardSites starts two SPA sites and returns them with their roots:
// one as 127.0.0.1, the other as localhost, hosts that fall in different
// shards of 2 (the port does not count).
func twoShardSites(t *testing.T) ([2]*spaweb.Site, [2]string) {
	t.Helper()
	sites := [2]*spaweb.Site{spaweb.Start(3), spaweb.Start(3)}
	t.Cleanup(sites[0].Close)
	t.Cleanup(sites[1].Close)
	roots := [2]string{sites[0].URL, strings.Replace(sites[1].URL, "127.0.0.1", "localhost", 1)}
	for i, r := range roots {
		u, _ := url.Parse(r)
		if crawlstore.ShardOf(u.Host, 2) != i {
			t.Fatalf("%s is not in shard %d of 2: the test would prove nothing", r, i)
		}
	}
	return sites, roots
}

// TestRenderShards crawls two SPA sites, one in each shard of two, with
// --render always and --shard I/2 at once: each shard renders the pages
// of its own site (the pages below each seed are found only by
// rendering), no page is rendered twice, and no browser is left when the
// shards are done.
func TestRenderShards(t *testing.T) {
	chromiumtest.Need(t)
	t.Setenv("HTTP_PROXY", "")
	emulator(t)
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir) // the browsers' user data directories
	sites, roots := twoShardSites(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			code, _, stderr := runCrawl(ctx, "--db", "bigtable://p/i/render", "--shard", fmt.Sprintf("%d/2", i), "--shard-timeout", "10s",
				"--delay", "0", "--depth", "2", "--allow-private", "--render", "always", "--render-timeout", "2s",
				roots[0]+"/p/0", roots[1]+"/p/0")
			if code != exitOK {
				t.Errorf("shard %d/2: exit %d\n%s", i, code, stderr)
			}
		})
	}
	wg.Wait()
	waitNoBrowser(t, tmpdir)
	for i, s := range sites {
		for _, p := range []string{"/p/0", "/p/1", "/p/2"} {
			if n := s.Hits("/api/page?path=" + url.QueryEscape(p)); n != 1 {
				t.Errorf("site of shard %d: %s was rendered %d times, want once, by its shard", i, p, n)
			}
		}
	}
}
