package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// cellsOf lists every cell of the store at dir, read raw.
func cellsOf(t *testing.T, dir string) []string {
	t.Helper()
	db, err := bigtable.Open(dir, bigtable.WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	err = db.Open(webtable.TableName).ReadRows(context.Background(), bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		for _, items := range r {
			for _, it := range items {
				out = append(out, fmt.Sprintf("%s %s@%d=%q", r.Key(), it.Column, it.Timestamp, it.Value))
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCrawlRefusesANewerFormat: a store whose format version is newer than
// the program's is refused, naming both versions, and left as it was (a
// seed and another --versions given, so that a crawl would otherwise
// write: its pages, and the contents family's GC policy).
func TestCrawlRefusesANewerFormat(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	srv := site(t, 2, 0, nil)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
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
	newer := webtable.FormatNewest + 1
	m := bigtable.NewMutation()
	m.Set(webtable.FamilyFetch, "version", webtable.FrontierTime, []byte(strconv.Itoa(int(newer))))
	if err := db.Open(webtable.TableName).Apply(ctx, webtable.FormatKey, m); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := cellsOf(t, dir)
	code, _, stderr := runCrawl(ctx, "--db", dir, "--delay", "0", "--versions", "7", srv.URL+"/p/0")
	if code == exitOK {
		t.Fatalf("crawl of a store in format version %d: exit 0, want it refused\n%s", newer, stderr)
	}
	for _, want := range []string{fmt.Sprintf("version %d", newer), fmt.Sprintf("program's %d", webtable.FormatNewest)} {
		if !strings.Contains(stderr, want) {
			t.Errorf("crawl says %q, want it to name %q", stderr, want)
		}
	}
	if diff := slices.Compare(before, cellsOf(t, dir)); diff != 0 {
		t.Errorf("the refused store changed:\nbefore %q\nafter  %q", before, cellsOf(t, dir))
	}
	db, err = bigtable.Open(dir, bigtable.WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fams, err := db.Families(ctx, webtable.TableName)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fams[webtable.FamilyContents].String(), bigtable.MaxVersionsPolicy(webtable.DefaultVersions).String(); got != want {
		t.Errorf("the refused store's contents GC policy = %s, want %s (as it was)", got, want)
	}
}
