package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// testWeb is three hosts: h0 has five pages about gardens, h1 one, and a
// copy of h1's page with a tracking parameter (a duplicate).
func testWeb() []jobstest.Page {
	var pages []jobstest.Page
	extra := []string{"Lilies open in May.", "Snails eat the lettuce at night.", "The hedge needs cutting twice a year, in spring and autumn.",
		"A compost heap feeds the beds with what the kitchen throws away.", "Bees visit the lavender from June to August."}
	for i := range 5 {
		pages = append(pages, jobstest.Page{
			URL:  fmt.Sprintf("http://h0.example.com/%d.html", i),
			HTML: fmt.Sprintf("<title>Garden %d</title><p>Roses grow in garden number %d. %s</p>", i, i, extra[i]),
		})
	}
	dup := "<title>Orchids</title><p>Orchids in the garden of the second host need shade and little water.</p>"
	pages = append(pages,
		jobstest.Page{URL: "http://h1.example.org/orchids.html", HTML: dup, Links: []string{"http://h0.example.com/0.html"}},
		jobstest.Page{URL: "http://h1.example.org/orchids.html?utm_source=x", HTML: dup},
		jobstest.Page{URL: "http://h2.example.net/", HTML: "<title>Deserts</title><p>No garden here: sand, cactus and sun.</p>",
			Links: []string{"http://h1.example.org/orchids.html"}},
	)
	return pages
}

// indexed stores pages, runs every job and returns the table, the
// index's directory and the search job's summary.
func indexed(t *testing.T, pages []jobstest.Page) (*webtable.WebTable, string) {
	t.Helper()
	w := jobstest.Open(t, t.TempDir(), 0)
	t.Cleanup(func() { w.Close() })
	jobstest.Store(t, w, pages)
	dir := t.TempDir()
	runAll(t, w, dir)
	return w, dir
}

func runAll(t *testing.T, w *webtable.WebTable, dir string) jobs.Summary {
	t.Helper()
	ctx := context.Background()
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} {
		if _, err := jobs.Run(ctx, w, j, jobs.Config{}); err != nil {
			t.Fatal(err)
		}
	}
	return runSearch(t, w, dir)
}

func runSearch(t *testing.T, w *webtable.WebTable, dir string) jobs.Summary {
	t.Helper()
	sh, err := OpenShard(dir, 0, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sum, err := jobs.Run(context.Background(), w, &Job{Shard: sh}, jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func find(t *testing.T, w *webtable.WebTable, dir string, req Request) []string {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Search(context.Background(), w, req)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, h := range res.Hits {
		keys = append(keys, h.Key)
	}
	return keys
}

func TestFolding(t *testing.T) {
	w, dir := indexed(t, testWeb())
	tests := []struct {
		name string
		req  Request
		want string // hits' keys, in order, comma-separated; "" none
	}{
		{"two per host", Request{Query: "roses"}, "com.example.h0/0.html,com.example.h0/1.html"},
		{"site lifts the cap", Request{Query: "roses site:h0.example.com"}, "com.example.h0/0.html,com.example.h0/1.html,com.example.h0/4.html,com.example.h0/2.html,com.example.h0/3.html"},
		{"one hit a cluster", Request{Query: "orchids"}, "org.example.h1/orchids.html"},
		{"phrase", Request{Query: `"garden number 3"`}, "com.example.h0/3.html"},
		{"excluded", Request{Query: "garden -roses -orchids"}, "net.example.h2/"},
		{"domain site", Request{Query: "garden", Filters: Filters{Sites: []string{"example.org"}}}, "org.example.h1/orchids.html"},
		{"language", Request{Query: "garden", Filters: Filters{Lang: "fr"}}, ""},
		{"stop word alone", Request{Query: "the"}, ""},
		{"before the crawl", Request{Query: "garden", Filters: Filters{At: webtable.TimestampOf(jobstest.Base.Add(-time.Second))}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(find(t, w, dir, tc.req), ","); got != tc.want {
				t.Errorf("Search(%+v) = %s\nwant %s", tc.req, got, tc.want)
			}
		})
	}
}

func TestIncremental(t *testing.T) {
	pages := testWeb()
	w, dir := indexed(t, pages)
	if sum := runSearch(t, w, dir); sum.Counts.Written != 0 {
		t.Errorf("a second run wrote %d rows, want 0: %+v", sum.Counts.Written, sum.Counts)
	}
	changed := pages[5]
	changed.HTML = "<title>Orchids</title><p>Orchids moved to a greenhouse.</p>"
	changed.Time = jobstest.Base.Add(time.Hour)
	jobstest.Store(t, w, []jobstest.Page{changed})
	sum := runAll(t, w, dir)
	if sum.Counts.Written == 0 {
		t.Errorf("after a page changed, the run wrote nothing: %+v", sum.Counts)
	}
	if got := find(t, w, dir, Request{Query: "greenhouse"}); len(got) != 1 || got[0] != "org.example.h1/orchids.html" {
		t.Errorf("greenhouse found %v after the change, want org.example.h1/orchids.html", got)
	}
}

func TestRebuild(t *testing.T) {
	w, dir := indexed(t, testWeb())
	shard := ShardDir(dir, 0, 1)
	for _, damage := range []string{"other form", "damaged"} {
		t.Run(damage, func(t *testing.T) {
			switch damage {
			case "other form":
				sh, err := OpenShard(dir, 0, 1, t.Logf)
				if err != nil {
					t.Fatal(err)
				}
				sh.idx.SetInternal(formKey, []byte("webtable-search 0"))
				sh.Close()
			case "damaged":
				if err := os.WriteFile(filepath.Join(shard, "index_meta.json"), []byte("{not json"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := OpenReader(dir); err == nil || !strings.Contains(err.Error(), "run index search to rebuild it") {
				t.Fatalf("OpenReader over an index %s = %v, want an error saying to rebuild", damage, err)
			}
			var said []string
			sh, err := OpenShard(dir, 0, 1, func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) })
			if err != nil {
				t.Fatal(err)
			}
			if !sh.Fresh || len(said) != 1 || !strings.Contains(said[0], "rebuilding") {
				t.Errorf("OpenShard over an index %s: fresh %v, said %q; want a new index and one line saying so", damage, sh.Fresh, said)
			}
			if err := ForgetRun(context.Background(), w, &Job{Shard: sh}); err != nil {
				t.Fatal(err)
			}
			sh.Close()
			runSearch(t, w, dir)
			if got := find(t, w, dir, Request{Query: "deserts"}); len(got) != 1 {
				t.Errorf("after the rebuild, deserts found %v, want one page", got)
			}
		})
	}
}

// TestShards builds the index as two shards and reads them together.
func TestShards(t *testing.T) {
	w := jobstest.Open(t, t.TempDir(), 0)
	defer w.Close()
	jobstest.Store(t, w, testWeb())
	ctx := context.Background()
	if _, err := jobs.Run(ctx, w, text.Job{}, jobs.Config{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 2 {
		sh, err := OpenShard(dir, i, 2, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jobs.Run(ctx, w, &Job{Shard: sh}, jobs.Config{Shard: i, Shards: 2, SplitRows: 2}); err != nil {
			t.Fatal(err)
		}
		sh.Close()
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 2 {
		idx, rows, err := openChecked(ShardDir(dir, i, 2), true)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := idx.DocCount()
		idx.Close()
		rows.Close()
		if n == 0 {
			t.Errorf("shard %d of 2 holds no document", i)
		}
	}
	if got := find(t, w, dir, Request{Query: "garden site:example.com"}); len(got) != 5 {
		t.Errorf("garden on example.com over two shards found %v, want the 5 pages of h0", got)
	}
}

// TestCapped indexes a page whose text passes the text job's cap: its
// first 64 KiB are searchable and the hit says it was capped.
func TestCapped(t *testing.T) {
	big := "<title>Big</title><p>haystack start</p>" + strings.Repeat("<p>filler words of a long page</p>", 4000) + "<p>needle at the end</p>"
	w, dir := indexed(t, []jobstest.Page{{URL: "http://big.example.com/", HTML: big}, {URL: "http://small.example.com/", HTML: "<p>haystack</p>"}})
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Search(context.Background(), w, Request{Query: "haystack"})
	if err != nil {
		t.Fatal(err)
	}
	capped := map[string]bool{}
	for _, h := range res.Hits {
		capped[h.Key] = h.Capped
	}
	if len(capped) != 2 || !capped["com.example.big/"] || capped["com.example.small/"] {
		t.Errorf("haystack hits, capped: %v; want both pages, only the big one capped", capped)
	}
	if got := find(t, w, dir, Request{Query: "needle"}); len(got) != 0 {
		t.Errorf("needle, past the cap, found %v; want nothing", got)
	}
}
