package bigtable

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestValueLogGCDuringWrites rewrites value log files while writers
// overwrite their rows. Badger v4.9.6 reads a memtable's highest version
// without a lock when it starts rewriting a value log file, while its
// write goroutine sets it: GC must keep writes out while it rewrites, or
// the race detector reports it (it did in 6 runs of 6 of this test before
// GC took the write lock). Without -race it still checks that GC reclaims
// value log files while writes go on, and that every row keeps its last
// value.
func TestValueLogGCDuringWrites(t *testing.T) {
	db := openTestDB(t, WithValueThreshold(64), WithValueLogFileSize(1<<20), WithMemTableSize(64<<10), WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	ctx := context.Background()
	if err := db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(1)); err != nil {
		t.Fatal(err)
	}
	const writers, rows, reclaim = 4, 64, 6
	value := []byte(strings.Repeat("v", 2<<10))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var last [writers]atomic.Int64
	errc := make(chan error, writers+1)
	for w := range writers {
		wg.Go(func() {
			for n := int64(1); ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				m := NewMutation()
				m.Set("f", "c", Timestamp(n*1000), append(strconv.AppendInt(nil, n, 10), value...))
				if err := tbl.Apply(ctx, fmt.Sprintf("w%d-%02d", w, n%rows), m); err != nil {
					errc <- err
					return
				}
				last[w].Store(n)
			}
		})
	}
	// NB: a value log file is reclaimed once compactions have dropped half
	// of it; the first file's disappearance shows GC rewrote files (and
	// started each rewrite) while the writers ran.
	first := filepath.Join(db.dir, "000001.vlog")
	reclaimed := 0
	deadline := time.Now().Add(2 * time.Minute)
	for reclaimed < reclaim && time.Now().Before(deadline) && len(errc) == 0 {
		if err := db.GC(ctx); err != nil {
			t.Fatalf("GC during writes: %v", err)
		}
		if _, err := os.Stat(first); err != nil {
			reclaimed = lowestVlog(t, db.dir) - 1
		}
	}
	close(stop)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatalf("Apply during GC: %v", err)
	}
	if reclaimed < reclaim {
		t.Fatalf("GC reclaimed %d value log files in 2 minutes of writes; want at least %d", reclaimed, reclaim)
	}
	for w := range writers {
		n := last[w].Load()
		for r := n; r > n-rows && r > 0; r-- {
			row := fmt.Sprintf("w%d-%02d", w, r%rows)
			got, err := tbl.ReadRow(ctx, row)
			if err != nil {
				t.Fatal(err)
			}
			want := strconv.FormatInt(r, 10)
			if c := got["f"]; len(c) != 1 || !strings.HasPrefix(string(c[0].Value), want+"v") {
				t.Fatalf("row %q after GC: %d cells, want one with value %s...", row, len(c), want)
			}
		}
	}
}

// lowestVlog returns the number of the oldest value log file in dir.
func lowestVlog(t testing.TB, dir string) int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no value log files in %s: %v", dir, err)
	}
	low := 0
	for _, name := range names {
		n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(name), ".vlog"))
		if err == nil && (low == 0 || n < low) {
			low = n
		}
	}
	return low
}
