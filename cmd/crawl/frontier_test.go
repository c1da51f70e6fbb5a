package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// oldStore makes a store as the code before the frontier had rows of its
// own left it: page 0 done, pages 1..3 queued in their rows only (fetch:url,
// depth and state at webtable.FrontierTime, what Enqueue wrote then), and
// one queued row whose depth does not parse, and no format version row
// (webtable.FormatOriginal). Extra rows are written raw with extra, when
// not nil.
func oldStore(t *testing.T, dir, base string, extra func(tbl *bigtable.Table)) {
	t.Helper()
	ctx := context.Background()
	w, err := stores.Open(ctx, dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl := db.Open(webtable.TableName)
	row := func(u, depth, state string, ts bigtable.Timestamp) {
		k, err := urlkey.Key(u)
		if err != nil {
			t.Fatal(err)
		}
		m := bigtable.NewMutation()
		m.Set(webtable.FamilyFetch, "url", ts, []byte(u))
		m.Set(webtable.FamilyFetch, "depth", ts, []byte(depth))
		m.Set(webtable.FamilyFetch, "state", ts, []byte(state))
		if err := tbl.Apply(ctx, k, m); err != nil {
			t.Fatal(err)
		}
	}
	row(base+"/p/0", "0", "done", bigtable.Now().TruncateToMilliseconds())
	for i := 1; i <= 3; i++ {
		row(fmt.Sprintf("%s/p/%d", base, i), "1", "queued", webtable.FrontierTime)
	}
	row(base+"/p/9", "x", "queued", webtable.FrontierTime)
	m := bigtable.NewMutation()
	m.DeleteRow()
	if err := tbl.Apply(ctx, webtable.FormatKey, m); err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		extra(tbl)
	}
}

// TestResumeMigratesAnOldStore: the first crawl that opens a store written
// before the frontier had rows of its own gives its queued pages frontier
// entries, names the row it cannot read, and resumes them without seeds.
func TestResumeMigratesAnOldStore(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	srv := site(t, 4, 0, nil)
	dir := filepath.Join(t.TempDir(), "db")
	oldStore(t, dir, srv.URL, nil)
	code, _, stderr := runCrawl(context.Background(), "--db", dir, "--delay", "0", "--depth", "5")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "moved 3 queued pages") {
		t.Errorf("the crawl does not say it moved the 3 queued pages to the frontier:\n%s", stderr)
	}
	if !strings.Contains(stderr, "private addresses ("+strings.TrimPrefix(srv.URL, "http://")+")") {
		t.Errorf("the crawl does not name the private address the old store had queued:\n%s", stderr)
	}
	bad, _ := urlkey.Key(srv.URL + "/p/9")
	if !strings.Contains(stderr, "cannot be read") || !strings.Contains(stderr, bad) {
		t.Errorf("the unreadable row %s is not named:\n%s", bad, stderr)
	}
	states := rowStates(t, dir)
	for i := 0; i <= 3; i++ {
		k, _ := urlkey.Key(fmt.Sprintf("%s/p/%d", srv.URL, i))
		if states[k] != "done" {
			t.Errorf("row %s is %q after the resume, want done", k, states[k])
		}
	}
	if !strings.Contains(stderr, "crawled 3 pages") {
		t.Errorf("want exactly the 3 queued pages fetched (page 0 was done):\n%s", stderr)
	}
	// A second crawl has nothing to move.
	code, _, stderr = runCrawl(context.Background(), "--db", dir, "--delay", "0", srv.URL+"/p/0")
	if code != exitOK || strings.Contains(stderr, "moved") {
		t.Errorf("second crawl: exit %d, output:\n%s", code, stderr)
	}
}

// TestBadFrontierEntryIsSkipped: a frontier entry that cannot be read is
// named in one line and counted in the summary; the crawl goes on.
func TestBadFrontierEntryIsSkipped(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	srv := site(t, 12, 0, nil)
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := filepath.Join(t.TempDir(), "db")
	badKey := webtable.FrontierEntryKey(host, 1, 1)
	oldStore(t, dir, srv.URL, func(tbl *bigtable.Table) {
		m := bigtable.NewMutation()
		m.Set(webtable.FamilyFetch, "url", webtable.FrontierTime, []byte("http://"+host+":99999/"))
		if err := tbl.Apply(context.Background(), badKey, m); err != nil {
			t.Fatal(err)
		}
		// The marker: this store needs no migration.
		m = bigtable.NewMutation()
		m.Set(webtable.FamilyFetch, "frontier", webtable.FrontierTime, []byte("v1"))
		if err := tbl.Apply(context.Background(), webtable.FrontierMarkerKey, m); err != nil {
			t.Fatal(err)
		}
	})
	code, _, stderr := runCrawl(context.Background(), "--db", dir, "--delay", "0", srv.URL+"/p/10")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stderr, badKey); n != 1 {
		t.Errorf("the bad entry %q is named %d times, want once:\n%s", badKey, n, stderr)
	}
	if !strings.Contains(stderr, "skipped       1 frontier entries") {
		t.Errorf("the summary does not count the skipped entry:\n%s", stderr)
	}
	if !strings.Contains(stderr, "crawled 1 pages") {
		t.Errorf("want the seed crawled:\n%s", stderr)
	}
}

// TestMaxPagesPerHostAcrossRuns: --max-pages-per-host counts the pages of
// earlier runs (the store holds the count): a crawl stopped after 2 pages
// and resumed with a limit of 5 fetches 3 more, and the rest stay queued.
func TestMaxPagesPerHostAcrossRuns(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	srv := site(t, 30, 3, nil)
	dir := filepath.Join(t.TempDir(), "db")
	args := []string{"--db", dir, "--delay", "0", "--depth", "50", "--concurrency", "4"}
	code, _, stderr := runCrawl(context.Background(), append(args, "--max-pages", "2", srv.URL+"/p/0")...)
	if code != exitOK || !strings.Contains(stderr, "crawled 2 pages") {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCrawl(context.Background(), append(args, "--max-pages-per-host", "5")...)
	if code != exitOK || !strings.Contains(stderr, "crawled 3 pages") {
		t.Fatalf("resumed run with --max-pages-per-host 5: exit %d, want 3 more pages\n%s", code, stderr)
	}
	code, _, stderr = runCrawl(context.Background(), append(args, "--max-pages-per-host", "5")...)
	if code != exitOK || !strings.Contains(stderr, "crawled 0 pages") {
		t.Errorf("third run with the host at its limit: exit %d, want nothing fetched\n%s", code, stderr)
	}
	var done, queued int
	for _, s := range rowStates(t, dir) {
		switch s {
		case "done":
			done++
		case "queued":
			queued++
		}
	}
	if done != 5 || queued == 0 {
		t.Errorf("%d pages done and %d queued, want 5 done and the rest queued", done, queued)
	}
}
