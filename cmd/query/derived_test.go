package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
)

// indexedStore is a small web, indexed: page 0 is linked from every
// other page, page 1 from half, and page 2 has an exact copy.
func indexedStore(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "db")
	w := jobstest.Open(t, dir, 0)
	var pages []jobstest.Page
	for i := 0; i < 12; i++ {
		p := jobstest.Page{
			URL:  fmt.Sprintf("http://www.example.com/%d.html", i),
			HTML: fmt.Sprintf("<title>Page %d</title><p>%s</p>", i, strings.Repeat(fmt.Sprintf("word%d ", i*37), 5+i)),
		}
		if i > 0 {
			p.Links = append(p.Links, "http://www.example.com/0.html")
		}
		if i%2 == 0 && i != 1 {
			p.Links = append(p.Links, "http://www.example.com/1.html")
		}
		pages = append(pages, p)
	}
	pages = append(pages, jobstest.Page{URL: "http://www.example.com/2.html?ref=feed", HTML: pages[2].HTML})
	jobstest.Store(t, w, pages)
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} {
		if _, err := jobs.Run(context.Background(), w, j, jobs.Config{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func query(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("query %q = %d: %s", args, code, errb.String())
	}
	return out.String()
}

func TestDerivedReaders(t *testing.T) {
	db := indexedStore(t)
	top := query(t, "--db", db, "scan", "--sort", "rank", "--limit", "2")
	lines := strings.Split(strings.TrimSpace(top), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "com.example.www/0.html") || !strings.HasSuffix(lines[1], "com.example.www/1.html") {
		t.Errorf("scan --sort rank --limit 2 =\n%s\nwant pages 0 then 1 (the most linked)", top)
	}
	d := query(t, "--db", db, "scan", "--dups")
	if !strings.Contains(d, "com.example.www/2.html (2 pages)\n  com.example.www/2.html?ref=feed\n") {
		t.Errorf("scan --dups =\n%s\nwant page 2 with its copy", d)
	}
	get := query(t, "--db", db, "get", "http://www.example.com/2.html?ref=feed")
	i := strings.Index(get, "  derived (index):\n")
	if i < 0 || strings.Contains(get[:i], "rank:page") || !strings.Contains(get[i:], "dup:of") || !strings.Contains(get[i:], "text:lang") {
		t.Errorf("get =\n%s\nwant the derived columns (dup, rank, text) after a heading of their own", get)
	}
}
