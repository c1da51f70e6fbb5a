package search

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestCloseMerges: closing a shard that a build wrote merges its
// segments into one and leaves no file of the segments merged; the
// documents are all there after.
func TestCloseMerges(t *testing.T) {
	dir := t.TempDir()
	sh, err := OpenShard(dir, 0, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	for b := range 3 {
		batch := sh.idx.NewBatch()
		for i := range 10 {
			batch.Index(fmt.Sprintf("k%d-%d 1", b, i), map[string]any{FieldBody: "roses and lilies", FieldTo: float64(Forever)})
		}
		if err := sh.idx.Batch(batch); err != nil {
			t.Fatal(err)
		}
		sh.written.Add(10)
	}
	zaps := func() []string {
		m, err := filepath.Glob(filepath.Join(ShardDir(dir, 0, 1), "store", "*.zap"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if n := len(zaps()); n < 2 {
		t.Fatalf("%d segment files after three batches, want several (the test needs segments to merge)", n)
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	if z := zaps(); len(z) != 1 {
		t.Errorf("after Close, segment files %q, want one", z)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.Docs(); err != nil || n != 30 {
		t.Errorf("after Close, Docs() = %d, %v; want 30", n, err)
	}
}
