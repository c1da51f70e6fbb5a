package main

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/webtable/webtable/internal/emulator"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/webtable"
)

// wantDump is the derived cells of pages after every job ran over a
// directory store, uninterrupted.
func wantDump(t *testing.T, pages []jobstest.Page) string {
	dir := makeStore(t, pages)
	if out, err := exec.Command(binary(t), "--db", dir, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	return dump(t, dir)
}

// TestOverCrawlServe runs index against a store that a crawl holds and
// serves (crawl --serve): it writes through the crawl's server.
func TestOverCrawlServe(t *testing.T) {
	pages := testPages(30)
	want := wantDump(t, pages)
	dir := makeStore(t, pages)
	ctx := context.Background()
	served, err := stores.OpenServed(ctx, dir, webtable.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	if out, err := exec.Command(binary(t), "--db", dir, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("index over the served store: %v\n%s", err, out)
	}
	if got := jobstest.Dump(t, served.WebTable); got != want {
		t.Errorf("the derived cells written through crawl --serve's server differ from a directory run's (%d bytes vs %d)", len(got), len(want))
	}
}

// TestOnEmulator runs the jobs unchanged on Cloud Bigtable (the emulator).
func TestOnEmulator(t *testing.T) {
	pages := testPages(30)
	want := wantDump(t, pages)
	emulator.Start(t)
	ctx := context.Background()
	w, err := stores.Open(ctx, "bigtable://p/i", stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.EnsureDerived(ctx); err != nil {
		t.Fatal(err)
	}
	jobstest.Store(t, w, pages)
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"--db", "bigtable://p/i", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("index on the emulator = %d: %s", code, errb.String())
	}
	if got := jobstest.Dump(t, w); got != want {
		t.Errorf("the derived cells on the emulator differ from a directory run's (%d bytes vs %d)", len(got), len(want))
	}
	// Again: nothing to change.
	out.Reset()
	if code := run(ctx, []string{"--db", "bigtable://p/i", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("index again on the emulator = %d: %s", code, errb.String())
	}
	for _, r := range summaryRow.FindAllStringSubmatch(out.String(), -1) {
		if r[5] != "0" {
			t.Errorf("a second run of %s on the emulator wrote %s rows, want 0:\n%s", r[1], r[5], out.String())
		}
	}
}
