package stores

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/webtable"
)

// TestCrawlOpensWithCrawlSizing: a directory opened ForCrawl is sized by
// CrawlStoreOptions, and the caller's options still override them. Badger
// shows its memtable size on disk: the log of the memtable being written
// is created at twice that size.
func TestCrawlOpensWithCrawlSizing(t *testing.T) {
	ctx := context.Background()
	want := 2 * bigtable.SizingOf(CrawlStoreOptions()...).MemTableSize
	for _, tc := range []struct {
		name string
		opts []bigtable.Option
		want int64
	}{
		{"crawl sizing", nil, want},
		{"caller's memtable size", []bigtable.Option{bigtable.WithMemTableSize(4 << 20)}, 8 << 20},
	} {
		for _, served := range []bool{false, true} {
			name := tc.name
			if served {
				name += ", served (crawl --serve)"
			}
			t.Run(name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "db")
				var w interface{ Close() error }
				var err error
				if served {
					w, err = OpenServed(ctx, dir, webtable.Options{Store: tc.opts}, "127.0.0.1:0", false)
				} else {
					w, err = Open(ctx, dir, ForCrawl, webtable.Options{Store: tc.opts})
				}
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				checkMemLogs(t, dir, tc.want)
			})
		}
	}
}

// checkMemLogs checks that every memtable log in dir is want bytes.
func checkMemLogs(t *testing.T, dir string, want int64) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no memtable log in %s (%v)", dir, err)
	}
	for _, l := range logs {
		fi, err := os.Stat(l)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != want {
			t.Errorf("memtable log %s is %d bytes, want %d (twice the memtable size)", filepath.Base(l), fi.Size(), want)
		}
	}
}
