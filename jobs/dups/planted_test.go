package dups_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/urlkey"
)

// plantedWeb generates a site whose pages share one template (navigation,
// sidebar, footer) around distinct articles, and planted copies of some
// articles: small edits, reordered boilerplate, tracking parameters
// (exact copies). It returns the pages and, per page key, the article it
// copies (its own for originals).
func plantedWeb(n int, seed uint64) ([]jobstest.Page, map[string]int) {
	rng := rand.New(rand.NewPCG(seed, 9))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", i*2654435761%1000003)
	}
	word := func() string { return vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64())] }
	sentence := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ") + "."
	}
	nav := []string{"<li>Home</li><li>News</li><li>Sport</li><li>Weather</li>", "<li>About us</li><li>Contact</li><li>Careers</li>", "<li>Privacy policy</li><li>Terms of use</li><li>Cookies</li>"}
	footer := "<footer>Copyright 2026 Example News Corporation. All rights reserved. Follow us on social media for the latest headlines and updates from around the world.</footer>"
	page := func(title string, paras []string, navOrder []int) string {
		var b strings.Builder
		b.WriteString("<html><head><title>" + title + "</title></head><body><nav><ul>")
		for _, i := range navOrder {
			b.WriteString(nav[i])
		}
		b.WriteString("</ul></nav><article><h1>" + title + "</h1>")
		for _, p := range paras {
			b.WriteString("<p>" + p + "</p>")
		}
		b.WriteString("</article>" + footer + "</body></html>")
		return b.String()
	}
	var pages []jobstest.Page
	of := map[string]int{}
	add := func(url, html string, article int) {
		pages = append(pages, jobstest.Page{URL: url, HTML: html})
		k, _ := urlkey.Key(url)
		of[k] = article
	}
	for a := 0; a < n; a++ {
		title := sentence(4)
		paras := make([]string, 3+rng.IntN(5))
		for i := range paras {
			paras[i] = sentence(12 + rng.IntN(20))
		}
		url := fmt.Sprintf("http://news.example.com/%d/article.html", a)
		add(url, page(title, paras, []int{0, 1, 2}), a)
		switch a % 5 {
		case 1: // a small edit: one word changed, a short sentence added
			edited := append([]string(nil), paras...)
			ws := strings.Fields(edited[0])
			ws[len(ws)/2] = word()
			edited[0] = strings.Join(ws, " ")
			edited = append(edited, "Updated at noon.")
			add(fmt.Sprintf("http://mirror.example.org/copy/%d.html", a), page(title, edited, []int{0, 1, 2}), a)
		case 2: // boilerplate reordered
			add(fmt.Sprintf("http://news.example.com/print/%d.html", a), page(title, paras, []int{2, 0, 1}), a)
		case 3: // tracking parameters: the same bytes
			add(url+"?utm_source=feed&utm_medium=rss", page(title, paras, []int{0, 1, 2}), a)
		}
	}
	return pages, of
}

func TestPlantedDuplicates(t *testing.T) {
	pages, article := plantedWeb(300, 1)
	w := jobstest.Open(t, t.TempDir(), 0)
	defer w.Close()
	jobstest.Store(t, w, pages)
	ctx := context.Background()
	if _, err := jobs.Run(ctx, w, text.Job{}, jobs.Config{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{1, 2, 3, 4, 6, 8} {
		j := &dups.Job{MaxDistance: d}
		if d == dups.MaxDistance {
			if _, err := jobs.Run(ctx, w, j, jobs.Config{Full: true}); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := j.Prepare(ctx, &jobs.Env{W: w}); err != nil {
				t.Fatal(err)
			}
		}
		p, r, exactMissed := score(j.Groups(), article, pages)
		t.Logf("distance <= %d: precision %.3f, recall %.3f, %d clusters", d, p, r, j.Clusters)
		if d == dups.MaxDistance {
			if p < 0.95 || r < 0.90 || exactMissed > 0 {
				t.Errorf("at distance %d: precision %.3f (want >= 0.95), recall %.3f (want >= 0.90), %d exact duplicates missed (want 0)", d, p, r, exactMissed)
			}
		}
	}
	of := jobstest.Column(t, w, "dup:of")
	sims := jobstest.Column(t, w, "dup:simhash")
	if len(sims) != len(pages) {
		t.Errorf("dup:simhash in %d rows, want every page (%d)", len(sims), len(pages))
	}
	copyKey, _ := urlkey.Key("http://news.example.com/3/article.html?utm_source=feed&utm_medium=rss")
	origKey, _ := urlkey.Key("http://news.example.com/3/article.html")
	if of[copyKey] != origKey || of[origKey] != origKey {
		t.Errorf("dup:of of the tracking copy = %q, of the original %q; want both %q (equal rank: the shorter URL)", of[copyKey], of[origKey], origKey)
	}
}

// score counts, over pairs of pages, the predicted pairs (same group)
// that copy the same article (precision) and the planted pairs found
// (recall), and the exact copies not grouped.
func score(groups map[string]string, article map[string]int, pages []jobstest.Page) (precision, recall float64, exactMissed int) {
	byArticle := map[int][]string{}
	for k, a := range article {
		byArticle[a] = append(byArticle[a], k)
	}
	var planted, found int
	for _, ks := range byArticle {
		for i := range ks {
			for j := i + 1; j < len(ks); j++ {
				planted++
				if groups[ks[i]] != "" && groups[ks[i]] == groups[ks[j]] {
					found++
				}
			}
		}
	}
	members := map[string][]string{}
	for k, rep := range groups {
		members[rep] = append(members[rep], k)
	}
	var predicted, right int
	for _, ms := range members {
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				predicted++
				if article[ms[i]] == article[ms[j]] {
					right++
				}
			}
		}
	}
	for _, p := range pages {
		if strings.Contains(p.URL, "utm_source") {
			k, _ := urlkey.Key(p.URL)
			if groups[k] == "" {
				exactMissed++
			}
		}
	}
	precision, recall = 1, 1
	if predicted > 0 {
		precision = float64(right) / float64(predicted)
	}
	if planted > 0 {
		recall = float64(found) / float64(planted)
	}
	return precision, recall, exactMissed
}
