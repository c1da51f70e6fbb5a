package webui

import (
	"context"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
)

// TestDerivedViews: after the jobs ran, the overview lists the pages of
// highest rank and a page view shows rank, language and duplicates, those
// on other sites too.
func TestDerivedViews(t *testing.T) {
	w := jobstest.Open(t, t.TempDir(), 0)
	var pages []jobstest.Page
	for i := 0; i < 8; i++ {
		p := jobstest.Page{URL: fmt.Sprintf("http://www.example.com/%d.html", i),
			HTML: fmt.Sprintf("<title>Story %d</title><p>%s</p>", i, strings.Repeat(fmt.Sprintf("the committee met on day %d ", i*31), 3+i))}
		if i > 0 {
			p.Links = []string{"http://www.example.com/0.html"}
		}
		pages = append(pages, p)
	}
	pages = append(pages, jobstest.Page{URL: "http://www.example.com/5.html?utm_source=x", HTML: pages[5].HTML},
		jobstest.Page{URL: "http://mirror.example.org/copy-of-5.html", HTML: pages[5].HTML})
	jobstest.Store(t, w, pages)
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} {
		if _, err := jobs.Run(context.Background(), w, j, jobs.Config{}); err != nil {
			t.Fatal(err)
		}
	}
	_, srv := serve(t, w, Options{})
	_, body := get(t, srv, "/", false)
	i := strings.Index(body, "Top pages by rank")
	if i < 0 || !strings.Contains(body[i:], `<td class="num">1</td><td><a href="/page?row=com.example.www%2f0.html">`) {
		t.Errorf("the overview lists no top pages by rank, or not page 0 (linked from every other):\n%s", body)
	}
	_, body = get(t, srv, "/page?row="+"com.example.www/5.html", false)
	body = html.UnescapeString(body)
	for _, want := range []string{"<h2>Index</h2>", "<code>en</code>", "this page represents its copies", "com.example.www/5.html?utm_source=x",
		"org.example.mirror/copy-of-5.html"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page view of page 5 lacks %q", want)
		}
	}
	_, body = get(t, srv, "/page?row="+"com.example.www/5.html%3Futm_source=x", false)
	if !strings.Contains(html.UnescapeString(body), "a copy of") {
		t.Errorf("the page view of the copy does not name its representative")
	}
	_, body = get(t, srv, "/page?row="+"org.example.mirror/copy-of-5.html", false)
	if body = html.UnescapeString(body); !strings.Contains(body, "a copy of") || !strings.Contains(body, "com.example.www/5.html?utm_source=x") {
		t.Errorf("the page view of the copy on another site does not list its representative and the other copy")
	}
}
