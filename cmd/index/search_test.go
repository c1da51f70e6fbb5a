package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webtable/webtable/jobs/search"
)

func listing(t *testing.T, db string) string {
	t.Helper()
	r, err := search.OpenReader(filepath.Join(db, search.DirName))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := r.Listing()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSearchKillResume kills index search with SIGKILL in the middle of
// its run, runs it again, and compares the index's documents with those
// of an uninterrupted run.
func TestSearchKillResume(t *testing.T) {
	pages := testPages(120)
	whole := makeStore(t, pages)
	if out, err := exec.Command(binary(t), "--db", whole, "--split-rows", "4", "--quiet", "--workers", "1").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	want := listing(t, whole)
	if n := strings.Count(want, "\n"); n < 100 {
		t.Fatalf("an uninterrupted run indexed %d versions, want the pages' (over 100)", n)
	}

	dir := makeStore(t, pages)
	if out, err := exec.Command(binary(t), "--db", dir, "--quiet", "text", "rank", "dups").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	resumed := false
	for _, share := range []float64{0.5, 0.2, 0.1} {
		args := []string{"--db", dir, "--split-rows", "4", "--workers", "1", "search"}
		if !killMidRun(t, append(args, "--progress-every", "0", "--full"), share) {
			continue
		}
		out, err := exec.Command(binary(t), append(args, "--quiet", "--full")...).CombinedOutput()
		if err != nil {
			t.Fatalf("rerun: %v\n%s", err, out)
		}
		if resumed = strings.Contains(string(out), "resumed"); resumed {
			break
		}
	}
	if !resumed {
		t.Fatal("no rerun resumed a killed run")
	}
	if got := listing(t, dir); got != want {
		t.Errorf("after SIGKILL and a rerun the index holds %d documents, an uninterrupted run %d",
			strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
}
