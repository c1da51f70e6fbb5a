package main

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// dirSize is the total size of the files under dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRecrawlDiskStaysFlat crawls a site 20 times with --recrawl, every
// page changing on every pass, into a store with small memtables and value
// log files whose background GC runs every 20 ms, during the crawls as in
// a long crawl, so that old versions are pruned, compacted away and their
// value log files rewritten while pages are written. The directory's size
// after the last pass (after Close) must stay within 1.5x of its size after
// pass 3, when every page has its 3 versions.
func TestRecrawlDiskStaysFlat(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const pages, passes, bodySize = 20, 20, 4 << 10
	var pass atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i >= pages {
			http.NotFound(w, r)
			return
		}
		// Text that differs on every pass and compresses poorly.
		p := pass.Load()
		rng := rand.New(rand.NewPCG(uint64(i), uint64(p)))
		var b strings.Builder
		fmt.Fprintf(&b, "<title>page %d, pass %d</title><p>", i, p)
		for b.Len() < bodySize {
			fmt.Fprintf(&b, "%x ", rng.Uint64())
		}
		for j := range 3 {
			fmt.Fprintf(&b, `<a href="/p/%d">link %d of pass %d</a>`, (i+j+1)%pages, j, p)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, b.String())
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "db")
	small := []bigtable.Option{bigtable.WithMemTableSize(1 << 20), bigtable.WithValueLogFileSize(1 << 20), bigtable.WithGCInterval(20 * time.Millisecond)}
	d := deps{storeGrace: storeGrace, open: func(ctx context.Context, db string, opts webtable.Options) (*webtable.WebTable, error) {
		opts.Store = append(opts.Store, small...)
		return stores.Open(ctx, db, stores.ForCrawl, opts)
	}}
	var sizes []int64
	for p := 1; p <= passes; p++ {
		pass.Store(int64(p))
		code, stderr := runCrawlWith(t, context.Background(), d, "--db", dir, "--delay", "0", "--depth", "100", "--recrawl", srv.URL+"/p/0")
		if code != exitOK {
			t.Fatalf("pass %d: exit %d\n%s", p, code, stderr)
		}
		if !strings.Contains(stderr, fmt.Sprintf("new versions  %d", pages)) {
			t.Fatalf("pass %d did not store a new version of each of the %d pages:\n%s", p, pages, stderr)
		}
		sizes = append(sizes, dirSize(t, dir))
	}
	t.Logf("directory size after each pass (KiB): %v", kib(sizes))
	if last, third := sizes[passes-1], sizes[2]; float64(last) > 1.5*float64(third) {
		t.Errorf("after %d passes the store takes %d KiB, %.2fx its %d KiB after pass 3; want at most 1.5x",
			passes, last>>10, float64(last)/float64(third), third>>10)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				t.Logf("%s: %d bytes", e.Name(), fi.Size())
			}
		}
	}
}

func kib(sizes []int64) []int64 {
	out := make([]int64, len(sizes))
	for i, s := range sizes {
		out[i] = s >> 10
	}
	return out
}
