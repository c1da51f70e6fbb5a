package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// storeInFormat makes a store with one page whose format version row says
// v, as a program of that version would leave it.
func storeInFormat(t *testing.T, v webtable.FormatVersion) string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	w, err := stores.Open(ctx, dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(ctx, "http://www.cnn.com/", crawlstore.StateQueued, webtable.FrontierTime); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := bigtable.NewMutation()
	m.Set(webtable.FamilyFetch, "version", webtable.FrontierTime, []byte(strconv.Itoa(int(v))))
	if err := db.Open(webtable.TableName).Apply(ctx, webtable.FormatKey, m); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestQueryRefusesOtherFormats: query reads a store one format version
// old; one older, or one newer than the program, is refused in one line
// (naming the command that migrates it, or both versions) and its files
// are left as they were.
func TestQueryRefusesOtherFormats(t *testing.T) {
	dir := storeInFormat(t, webtable.FormatOldestReadable)
	if code, _, stderr := runQuery("--db", dir, "stats"); code != exitOK {
		t.Errorf("query stats of a store in version %d: exit %d, want 0\n%s", webtable.FormatOldestReadable, code, stderr)
	}
	for _, tc := range []struct {
		name string
		v    webtable.FormatVersion
		want []string
	}{
		{"too old", webtable.FormatOldestReadable - 1, []string{fmt.Sprintf("version %d", webtable.FormatOldestReadable-1), "run crawl --db "}},
		{"too new", webtable.FormatNewest + 1, []string{fmt.Sprintf("version %d", webtable.FormatNewest+1), fmt.Sprintf("program's %d", webtable.FormatNewest)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := storeInFormat(t, tc.v)
			before := snapshot(t, dir)
			code, out, stderr := runQuery("--db", dir, "stats")
			if code == exitOK || out != "" {
				t.Errorf("query stats: exit %d, stdout %q; want it refused", code, out)
			}
			if n := strings.Count(strings.TrimSuffix(stderr, "\n"), "\n"); n != 0 {
				t.Errorf("query says %d lines, want one:\n%s", n+1, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("query says %q, want it to hold %q", stderr, w)
				}
			}
			if diff := diffSnapshots(before, snapshot(t, dir)); diff != "" {
				t.Errorf("query changed the store's files:\n%s", diff)
			}
		})
	}
}
