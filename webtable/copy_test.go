package webtable

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// dump reads every cell of every row, all versions, for comparison.
func dump(t *testing.T, w *WebTable) []Row {
	t.Helper()
	var rows []Row
	if err := w.Scan(context.Background(), nil, Query{Versions: -1}, 0, func(r Row) bool { rows = append(rows, r); return true }); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestCopyKeepsEveryVersionAndTimestamp(t *testing.T) {
	ctx := context.Background()
	src, _ := openTemp(t)
	for i := range 3 {
		for _, u := range []string{"http://www.cnn.com/", "http://cnnsi.com/", "http://my.look.ca/"} {
			if _, err := src.RecordFetch(ctx, htmlPage(u, t0.Add(time.Duration(i)*time.Hour), fmt.Sprintf("<p>%s %d", u, i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := src.AddLinks(ctx, "http://cnnsi.com/", []Anchor{{URL: "http://www.cnn.com/", Text: "CNN"}}, []crawlstore.Entry{{URL: "http://www.cnn.com/sports", Depth: 1}}, bigtable.Time(t0)); err != nil {
		t.Fatal(err)
	}
	dst := openDir(t, filepath.Join(t.TempDir(), "dst.db"), true, Options{})
	defer dst.Close()
	var calls int
	st, err := Copy(ctx, dst, src, func(CopyStats) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	want := dump(t, src)
	// The page rows and the frontier's one entry (cnn.com/sports).
	if st.Rows != int64(len(want))+1 || calls == 0 {
		t.Errorf("Copy stats %+v after %d progress calls; want %d rows", st, calls, len(want)+1)
	}
	var queued []string
	if err := dst.Queued(ctx, func(e crawlstore.Entry) bool { queued = append(queued, e.URL); return true }); err != nil {
		t.Fatal(err)
	}
	if len(queued) != 1 || queued[0] != "http://www.cnn.com/sports" {
		t.Errorf("frontier of the copy = %v, want the source's (www.cnn.com/sports)", queued)
	}
	if diff := cmp.Diff(want, dump(t, dst)); diff != "" {
		t.Errorf("copy differs from source (-src +dst):\n%s", diff)
	}
	// Copying again changes nothing: the copy is idempotent.
	if _, err := Copy(ctx, dst, src, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, dump(t, dst)); diff != "" {
		t.Errorf("second copy changed the destination (-src +dst):\n%s", diff)
	}
}

// TestCopyLargeRow copies a row with more anchor columns than one
// transaction of the destination holds (a store with 4 MiB memtables takes
// about 600 KiB a transaction; the row holds about 900 KiB): Copy writes it
// in parts instead of failing with ErrTooLarge.
func TestCopyLargeRow(t *testing.T) {
	ctx := context.Background()
	src, _ := openTemp(t)
	const n = 6000
	anchors := []Anchor{{URL: "http://popular.example/", Text: "the page everybody links to"}}
	for i := range n {
		from := fmt.Sprintf("http://site%04d.example/a/rather/long/path/to/the/page/that/links/%04d.html", i, i)
		if _, err := src.AddLinks(ctx, from, anchors, nil, bigtable.Time(t0)); err != nil {
			t.Fatal(err)
		}
	}
	small := Options{Store: []bigtable.Option{bigtable.WithMemTableSize(4 << 20)}}
	dst := openDir(t, filepath.Join(t.TempDir(), "dst.db"), true, small)
	defer dst.Close()
	st, err := Copy(ctx, dst, src, nil)
	if err != nil {
		t.Fatalf("Copy of a row of %d anchors: %v", n, err)
	}
	if st.Cells < n {
		t.Errorf("Copy stats %+v, want at least %d cells", st, n)
	}
	if diff := cmp.Diff(dump(t, src), dump(t, dst)); diff != "" {
		t.Errorf("copy differs from source (-src +dst):\n%s", diff)
	}
}
