package main

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/webtable/webtable/internal/realweb"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/search"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// BenchmarkSearchRelevance crawls a Debian manual served on loopback (as
// cmd/crawl's TestManuals does), runs every job, and measures without
// human labels: the share of pages whose own title, as the query (on the
// manual's site), returns the page in the top 3; and, for phrases of three
// words drawn from the pages, the recall of searching the phrase in quotes
// against a scan of the stored text (every page holding it).
func BenchmarkSearchRelevance(b *testing.B) {
	needDemoB(b)
	for _, m := range []realweb.Manual{realweb.Python, realweb.Postgres} {
		b.Run(m.Package, func(b *testing.B) {
			for range b.N {
				relevance(b, m)
			}
		})
	}
}

func needDemoB(b *testing.B) {
	if demoErr != nil {
		b.Fatalf("no binaries: %v", demoErr)
	}
}

func relevance(b *testing.B, m realweb.Manual) {
	web := realweb.Manuals(b, m)
	db := filepath.Join(b.TempDir(), "manual.db")
	cmd := exec.Command(filepath.Join(binDir, "crawl"), "--db", db, "--proxy", web.Proxy(), "--depth", "100", "--concurrency", "4", "--delay", "0s", m.Seed())
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("crawl: %v\n%s", err, out)
	}
	ctx := context.Background()
	w, err := stores.OpenForJobs(ctx, db, webtable.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	sh, err := search.OpenShard(filepath.Join(db, search.DirName), 0, 1, b.Logf)
	if err != nil {
		b.Fatal(err)
	}
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}, &search.Job{Shard: sh}} {
		if _, err := jobs.Run(ctx, w, j, jobs.Config{Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
	sh.Close()
	type page struct{ key, title, body, of string }
	var pages []page
	err = w.ScanSelect(ctx, "", "", webtable.Select{Columns: []string{"text:title", "text:body", "dup:of"}}, func(r webtable.Row) bool {
		p := page{key: r.Key}
		for _, c := range r.Cells {
			switch c.Column() {
			case "text:title":
				p.title = string(c.Value)
			case "text:body":
				p.body = string(c.Value)
			case "dup:of":
				p.of = string(c.Value)
			}
		}
		if p.body != "" {
			pages = append(pages, p)
		}
		return true
	})
	if err != nil {
		b.Fatal(err)
	}
	r, err := search.OpenReader(filepath.Join(db, search.DirName))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	site := strings.TrimSuffix(strings.TrimPrefix(m.Prefix, "http://"), "/")
	site, _, _ = strings.Cut(site, "/")
	of := map[string]string{}
	for _, p := range pages {
		of[p.key] = p.of
	}
	isHit := func(hits []search.Hit, key string) bool {
		for _, h := range hits {
			if h.Key == key || (of[key] != "" && (h.DupOf == of[key] || h.Key == of[key])) {
				return true
			}
		}
		return false
	}
	// Titles.
	clean := strings.NewReplacer(`"`, " ", " -", " ", "site:", " ")
	var titled, top3 int
	var misses []string
	for _, p := range pages {
		if strings.TrimSpace(p.title) == "" {
			continue
		}
		titled++
		res, err := r.Search(ctx, w, search.Request{Query: clean.Replace(" " + p.title), Limit: 3, Filters: search.Filters{Sites: []string{site}}})
		if err != nil {
			b.Fatalf("title %q: %v", p.title, err)
		}
		if isHit(res.Hits, p.key) {
			top3++
		} else if len(misses) < 5 {
			misses = append(misses, p.title)
		}
	}
	// Phrases.
	rng := rand.New(rand.NewPCG(5, 6))
	alpha := regexp.MustCompile(`^[A-Za-z]{4,}$`)
	var phrases, expected, found int
	for tries := 0; phrases < 200 && tries < 5000; tries++ {
		p := pages[rng.IntN(len(pages))]
		words := strings.Fields(p.body)
		if len(words) < 3 {
			continue
		}
		i := rng.IntN(len(words) - 2)
		if !alpha.MatchString(words[i]) || !alpha.MatchString(words[i+1]) || !alpha.MatchString(words[i+2]) {
			continue
		}
		phrase := strings.Join(words[i:i+3], " ")
		re := regexp.MustCompile(`(?i)(^|[\s(\["])` + words[i] + `\s+` + words[i+1] + `\s+` + words[i+2] + `($|\s|[.,;:!?)\]"]($|\s))`)
		phrases++
		res, err := r.Search(ctx, w, search.Request{Query: `"` + phrase + `"`, Limit: 1000, Filters: search.Filters{Sites: []string{site}}})
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range pages {
			if re.MatchString(q.body) {
				expected++
				if isHit(res.Hits, q.key) {
					found++
				} else if len(misses) < 10 {
					misses = append(misses, "phrase "+phrase+" in "+q.key)
				}
			}
		}
	}
	b.ReportMetric(float64(top3)/float64(titled), "title-top3")
	b.ReportMetric(float64(found)/float64(expected), "phrase-recall")
	b.Logf("%s: %d pages with text; title in the top 3 for %d of %d (%.3f); %d phrases, recall %d of %d pages (%.4f); misses e.g. %q",
		m.Package, len(pages), top3, titled, float64(top3)/float64(titled), phrases, found, expected, float64(found)/float64(expected), misses)
}
