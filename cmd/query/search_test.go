package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webtable/webtable/internal/jsonshape"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/search"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// buildIndex runs the text and search jobs over db in-process, as
// "index text search" does.
func buildIndex(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	w, err := stores.OpenForJobs(ctx, db, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sh, err := search.OpenShard(filepath.Join(db, search.DirName), 0, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	for _, job := range []jobs.Job{text.Job{}, &search.Job{Shard: sh}} {
		if _, err := jobs.Run(ctx, w, job, jobs.Config{}); err != nil {
			t.Fatal(err)
		}
	}
}

// changingSite serves six pages; the even ones change with each
// generation: their title and a word of their text.
func changingSite(gen *atomic.Int32) *httptest.Server {
	seasons := []string{"", "springtime", "summertime", "wintertime", "autumntime"}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		i := 0
		if p := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/p"), ".html"); p != "/" {
			i, _ = strconv.Atoi(p)
		}
		g := int(gen.Load())
		title, word := fmt.Sprintf("Page %d", i), "steady"
		if i%2 == 0 {
			title, word = fmt.Sprintf("Page %d of %s", i, seasons[g]), seasons[g]
		}
		var links strings.Builder
		for j := 1; j < 6; j++ {
			fmt.Fprintf(&links, `<a href="/p%d.html">page %d</a> `, j, j)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>Common words of page number %d, %s weather.</p>%s</body></html>",
			title, i, word, links.String())
	}))
}

// crawlSite crawls srv into db; again recrawls the stored pages.
func crawlSite(t *testing.T, db, seeds string, again bool) {
	t.Helper()
	args := []string{"--db", db, "--seeds", seeds, "--delay", "0", "--allow-private"}
	if again {
		args = append(args, "--recrawl")
	}
	cmd := exec.Command(filepath.Join(binDir, "crawl"), args...)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("crawl %q: %v\n%s", args, err, out)
	}
}

func searchJSON(t *testing.T, args ...string) jsonshape.SearchResult {
	t.Helper()
	code, out, errOut := runQuery(append([]string{"search", "--json"}, args...)...)
	if code > 1 {
		t.Fatalf("query search %q = %d: %s", args, code, errOut)
	}
	var res jsonshape.SearchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("query search %q printed %q: %v", args, out, err)
	}
	return res
}

// rowAt is what query get --at shows of a page: column -> value and
// timestamp.
type cellAt struct {
	value string
	ts    int64
}

func rowAt(t *testing.T, db, url, at string) map[string]cellAt {
	t.Helper()
	args := []string{"--db", db, "get", url, "--json"}
	if at != "" {
		args = append(args, "--at", at)
	}
	out := map[string]cellAt{}
	code, stdout, errOut := runQuery(args...)
	if code != 0 {
		return out
	}
	var row jsonshape.Row
	if err := json.Unmarshal([]byte(stdout), &row); err != nil {
		t.Fatalf("get %q printed %q (%v); stderr %s", args, stdout, err, errOut)
	}
	for _, c := range row.Cells {
		v := ""
		if c.Value != nil {
			v = *c.Value
		}
		out[c.Column] = cellAt{v, c.Timestamp}
	}
	return out
}

// TestSearchAt crawls a site three times with changes between, indexes
// it, and checks that search --at T finds exactly the versions query get
// --at T shows: the same version of each page, and every page holding
// the word then.
func TestSearchAt(t *testing.T) {
	var gen atomic.Int32
	gen.Store(1)
	srv := changingSite(&gen)
	defer srv.Close()
	dir := t.TempDir()
	db, seeds := filepath.Join(dir, "site.db"), filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte(srv.URL+"/\n"), 0o644)
	var ats []string
	for g := int32(1); g <= 3; g++ {
		gen.Store(g)
		crawlSite(t, db, seeds, g > 1)
		ats = append(ats, strconv.FormatInt(time.Now().UnixMicro(), 10))
	}
	buildIndex(t, db)
	var urls []string
	for i := 0; i < 6; i++ {
		urls = append(urls, fmt.Sprintf("%s/p%d.html", srv.URL, i))
	}
	urls[0] = srv.URL + "/"
	checked := 0
	for _, at := range append(ats, "") {
		rows := map[string]map[string]cellAt{}
		for _, u := range urls {
			rows[u] = rowAt(t, db, u, at)
		}
		for _, word := range []string{"common", "springtime", "summertime", "wintertime", "steady", `"page number 4"`} {
			args := []string{"--db", db, word, "--site", "127.0.0.1", "--limit", "50"}
			if at != "" {
				args = append(args, "--at", at)
			}
			res := searchJSON(t, args...)
			if res.Matches != uint64(len(res.Hits)) {
				t.Errorf("at %q, %s: the index matched %d versions for %d hits; want one version a page", at, word, res.Matches, len(res.Hits))
			}
			got := map[string]int64{}
			for _, h := range res.Hits {
				got[h.URL] = h.Timestamp
			}
			plain := strings.ToLower(strings.Trim(word, `"`))
			for _, u := range urls {
				row := rows[u]
				body, ts, title, htmlTS := row["text:body"].value, row["text:body"].ts, row["text:title"].value, row["contents:html"].ts
				holds := strings.Contains(strings.ToLower(body), plain)
				hitTS, hit := got[u]
				switch {
				case hit && hitTS != htmlTS:
					t.Errorf("at %q, %s: a hit for %s shows the version of %d; query get --at shows %d", at, u, word, hitTS, htmlTS)
				case hit && ts != htmlTS:
					t.Errorf("at %q, %s: text:body of %d beside contents:html of %d", at, u, ts, htmlTS)
				case holds && !hit:
					t.Errorf("at %q, %s holds %s (%q) but search did not find it; hits %v", at, u, word, body, got)
				case hit && !holds:
					t.Errorf("at %q, %s is a hit for %s but its text then is %q", at, u, word, body)
				}
				for _, h := range res.Hits {
					if h.URL == u && h.Title != title {
						t.Errorf("at %q, hit %s has title %q, query get --at shows %q", at, u, h.Title, title)
					}
				}
				if hit {
					checked++
				}
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d hits were checked against query get --at; the site's crawls stored too little", checked)
	}

	// A phrase of stop words alone is looked for in the pages' text; a
	// stop word alone, unquoted, matches nothing and says to quote it.
	if res := searchJSON(t, "--db", db, `"of"`, "--site", "127.0.0.1"); len(res.Hits) == 0 || res.Note != "" {
		t.Errorf(`search "of" gave %d hits, note %q; want hits (every page has "of" in its text) and no note`, len(res.Hits), res.Note)
	}
	if code, out, _ := runQuery("--db", db, "search", "of"); code != 1 || !strings.Contains(out, `note: left out of: stop words`) {
		t.Errorf("search of = %d, printed %q; want 1 and a note saying stop words are left out", code, out)
	}

	// A fourth crawl the index has not seen: the newest versions it holds
	// are no longer the table's, and are not shown as if they were.
	gen.Store(4)
	crawlSite(t, db, seeds, true)
	if res := searchJSON(t, "--db", db, "wintertime", "--site", "127.0.0.1"); len(res.Hits) != 0 || res.Matches == 0 {
		t.Errorf("after a crawl the index has not seen, wintertime matched %d versions and gave hits %v; want matches but no hit (the table's pages have changed)", res.Matches, res.Hits)
	}
}
