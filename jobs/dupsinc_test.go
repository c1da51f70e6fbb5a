package jobs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/webtable"
)

// countingTable counts the mutations written to page rows (the runner's
// records in reserved rows aside).
type countingTable struct {
	webtable.Table
	n atomic.Int64
}

func (c *countingTable) note(row string) {
	if !strings.HasPrefix(row, webtable.ReservedPrefix) {
		c.n.Add(1)
	}
}

func (c *countingTable) Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error {
	c.note(row)
	return c.Table.Apply(ctx, row, m, opts...)
}

func (c *countingTable) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	for _, r := range rows {
		c.note(r)
	}
	return c.Table.ApplyBulk(ctx, rows, muts)
}

func (c *countingTable) ApplyReadModifyWrite(ctx context.Context, row string, m *bigtable.ReadModifyWrite) (bigtable.Row, error) {
	c.note(row)
	return c.Table.ApplyReadModifyWrite(ctx, row, m)
}

// openCounting opens a WebTable in dir whose page-row mutations are counted.
func openCounting(t *testing.T, dir string) (*webtable.WebTable, *countingTable) {
	t.Helper()
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ct := &countingTable{Table: db.Open(webtable.TableName)}
	w, err := webtable.New(context.Background(), db, ct, true, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.EnsureDerived(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w, ct
}

// dupValues is every dup cell of every page row, without timestamps:
// "key dup:qualifier = value" lines in key order.
func dupValues(t *testing.T, w *webtable.WebTable) string {
	t.Helper()
	var b strings.Builder
	err := w.ScanSelect(context.Background(), "", "", webtable.Select{Families: []string{webtable.FamilyDup}}, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			fmt.Fprintf(&b, "%s %s = %q\n", r.Key, c.Column(), c.Value)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dupSite is pages on three sites with copies across them: article i on
// a.example.com, its copy on mirror.example.org for i%3 == 0, a near copy
// (one word changed) on b.example.net for i%4 == 0.
func dupSite() []jobstest.Page {
	var pages []jobstest.Page
	for i := range 24 {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		var words []string
		for range 60 {
			words = append(words, fmt.Sprintf("word%d", rng.IntN(5000)))
		}
		body := fmt.Sprintf("<title>Article %d</title><p>%s long</p>", i, strings.Join(words, " "))
		pages = append(pages, jobstest.Page{URL: fmt.Sprintf("http://a.example.com/%d.html", i), HTML: body,
			Links: []string{"http://a.example.com/0.html"}})
		if i%3 == 0 {
			pages = append(pages, jobstest.Page{URL: fmt.Sprintf("http://mirror.example.org/%d.html", i), HTML: body})
		}
		if i%4 == 0 {
			pages = append(pages, jobstest.Page{URL: fmt.Sprintf("http://b.example.net/%d.html", i), HTML: strings.Replace(body, "long", "lengthy", 1)})
		}
	}
	return pages
}

// TestDupsIncrementalEqualsFull: a dups rerun over an unchanged table
// writes no mutation; after pages change (one joins a cluster, one leaves
// its own), the incremental run hashes only those and its dup cells equal
// a full run's over a fresh store holding the same pages.
func TestDupsIncrementalEqualsFull(t *testing.T) {
	pages := dupSite()
	w, ct := openCounting(t, t.TempDir())
	defer w.Close()
	jobstest.Store(t, w, pages)
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} {
		run(t, w, j, jobs.Config{SplitRows: 5})
	}
	ct.n.Store(0)
	again := &dups.Job{}
	sum := run(t, w, again, jobs.Config{SplitRows: 5})
	if n := ct.n.Load(); n != 0 || sum.Counts.Written != 0 || again.Hashed != 0 {
		t.Errorf("a dups rerun over an unchanged table wrote %d mutations (%d rows) and hashed %d pages; want none", n, sum.Counts.Written, again.Hashed)
	}
	// Article 5 becomes a copy of article 6; the mirror of article 9
	// becomes a text of its own.
	later := jobstest.Base.Add(time.Hour)
	changed := []jobstest.Page{
		{URL: "http://a.example.com/5.html", HTML: pageOf(pages, "http://a.example.com/6.html").HTML, Links: []string{"http://a.example.com/0.html"}, Time: later},
		{URL: "http://mirror.example.org/9.html", HTML: "<title>Gone</title><p>This mirror now hosts a recipe for lentil soup with cumin.</p>", Time: later},
	}
	jobstest.Store(t, w, changed)
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}} {
		run(t, w, j, jobs.Config{SplitRows: 5})
	}
	ct.n.Store(0)
	inc := &dups.Job{}
	sum = run(t, w, inc, jobs.Config{SplitRows: 5})
	if inc.Hashed != len(changed) {
		t.Errorf("the incremental run hashed %d pages, want %d (those whose text changed)", inc.Hashed, len(changed))
	}
	if n := ct.n.Load(); n != sum.Counts.Written || n == 0 || n > 8 {
		t.Errorf("the incremental run wrote %d mutations for %d rows; want one per changed row, a few", n, sum.Counts.Written)
	}
	got := dupValues(t, w)

	fresh := jobstest.Open(t, t.TempDir(), 0)
	defer fresh.Close()
	jobstest.Store(t, fresh, pages)
	jobstest.Store(t, fresh, changed)
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} {
		run(t, fresh, j, jobs.Config{Full: true})
	}
	if want := dupValues(t, fresh); got != want {
		t.Errorf("dup cells after the incremental run differ from a full run's:\n--- incremental\n%s--- full\n%s", got, want)
	}
	if !strings.Contains(got, `com.example.a/5.html dup:of = "com.example.a/6.html"`) && !strings.Contains(got, `com.example.a/6.html dup:of = "com.example.a/5.html"`) {
		t.Errorf("article 5, now a copy of article 6, is not in its cluster:\n%s", got)
	}
	if strings.Contains(got, "org.example.mirror/9.html dup:of") {
		t.Errorf("the mirror of article 9, now a text of its own, is still in a cluster:\n%s", got)
	}
}

// pageOf returns the page of pages at url.
func pageOf(pages []jobstest.Page, url string) jobstest.Page {
	for _, p := range pages {
		if p.URL == url {
			return p
		}
	}
	panic("no page " + url)
}
