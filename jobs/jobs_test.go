package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webtable/webtable/jobs"
	"github.com/webtable/webtable/jobs/dups"
	"github.com/webtable/webtable/jobs/jobstest"
	"github.com/webtable/webtable/jobs/rank"
	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// site builds n linked pages over a few hosts, with links to pages never
// fetched and self-links.
func site(n int, seed uint64) []jobstest.Page {
	rng := rand.New(rand.NewPCG(seed, 2))
	url := func(i int) string { return fmt.Sprintf("http://h%d.example.com/p%03d.html", i%4, i) }
	var pages []jobstest.Page
	for i := 0; i < n; i++ {
		p := jobstest.Page{URL: url(i), HTML: fmt.Sprintf("<html><head><title>Page %d</title></head><body><p>This is page number %d about topic %d.</p></body></html>", i, i, i%7)}
		if i%9 != 5 { // some pages are dangling
			for k := rng.IntN(6); k >= 0; k-- {
				p.Links = append(p.Links, url(rng.IntN(n)*rng.IntN(n)/n))
			}
			p.Links = append(p.Links, url(i), fmt.Sprintf("http://unfetched.example.org/%d", i))
		}
		pages = append(pages, p)
	}
	return pages
}

// edgesOf is the graph the pages describe, as node indices in key order.
func edgesOf(t *testing.T, pages []jobstest.Page) ([]string, [][2]int32) {
	keyOf := map[string]int32{}
	var keys []string
	for _, p := range pages {
		k, _ := urlkey.Key(p.URL)
		keys = append(keys, k)
	}
	sortStrings(keys)
	for i, k := range keys {
		keyOf[k] = int32(i)
	}
	seen := map[[2]int32]bool{}
	var edges [][2]int32
	for _, p := range pages {
		from, _ := urlkey.Key(p.URL)
		for _, l := range p.Links {
			to, _ := urlkey.Key(l)
			v, ok := keyOf[to]
			e := [2]int32{keyOf[from], v}
			if ok && !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	return keys, edges
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func run(t *testing.T, w *webtable.WebTable, job jobs.Job, cfg jobs.Config) jobs.Summary {
	t.Helper()
	sum, err := jobs.Run(context.Background(), w, job, cfg)
	if err != nil {
		t.Fatalf("running %s: %v", job.Name(), err)
	}
	return sum
}

func TestRankJob(t *testing.T) {
	pages := site(40, 1)
	w := jobstest.Open(t, t.TempDir(), 0)
	defer w.Close()
	jobstest.Store(t, w, pages)
	// An anchor from a page that was never fetched: a row that does not exist.
	if _, err := w.AddLinks(context.Background(), "http://ghost.example.net/", []webtable.Anchor{{URL: pages[3].URL}}, nil, 1000); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	sum := run(t, w, &rank.Job{}, jobs.Config{SplitRows: 7, Workers: 2, Log: log.New(&logs, "", 0)})
	keys, edges := edgesOf(t, pages)
	want, _ := rank.FromEdges(len(keys), edges).PageRank()
	got := jobstest.Column(t, w, "rank:page")
	if len(got) != len(keys) {
		t.Fatalf("rank:page in %d rows, want %d (the fetched pages): %v", len(got), len(keys), jobstest.Keys(got))
	}
	var total float64
	for i, k := range keys {
		r, ok := rank.ParseRank(got[k])
		if !ok {
			t.Fatalf("rank:page of %s = %q, not a decimal", k, got[k])
		}
		total += r
		if math.Abs(r-want[i]) > 1e-12 {
			t.Errorf("rank:page of %s = %v, want %v", k, r, want[i])
		}
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("ranks sum to %v, want 1", total)
	}
	if sum.Splits < 5 {
		t.Errorf("the run had %d splits, want 40 rows cut every 7 (>= 5)", sum.Splits)
	}
	if sum.Counts.Bad != 1 || !strings.Contains(logs.String(), urlkeyOf(pages[3].URL)) {
		t.Errorf("bad rows = %d, log %q; want 1, naming %s (its anchor names a row that does not exist)", sum.Counts.Bad, logs.String(), urlkeyOf(pages[3].URL))
	}
	hosts := jobstest.Column(t, w, "rank:hosts")
	if h := hosts[urlkeyOf(pages[3].URL)]; h == "" || h == "0" {
		t.Errorf("rank:hosts of %s = %q, want the hosts linking to it (ghost.example.net at least)", pages[3].URL, h)
	}

	// A rank:page an older version wrote in another form is rewritten.
	k := urlkeyOf(pages[7].URL)
	good := got[k]
	if err := w.WriteDerived(context.Background(), []webtable.DerivedWrite{{Key: k, Family: webtable.FamilyRank,
		Cells: []webtable.DerivedCell{{Qualifier: rank.ColPage, Timestamp: webtable.TimestampOf(time.Now()).TruncateToMilliseconds(), Value: []byte("1.5e-2")}}}}); err != nil {
		t.Fatal(err)
	}
	if fixed := run(t, w, &rank.Job{}, jobs.Config{SplitRows: 7}); fixed.Counts.Written != 1 || jobstest.Column(t, w, "rank:page")[k] != good {
		t.Errorf("after a rank:page of another form, the rerun wrote %d rows and left %q; want 1 and %q", fixed.Counts.Written, jobstest.Column(t, w, "rank:page")[k], good)
	}

	before := jobstest.Dump(t, w)
	again := run(t, w, &rank.Job{}, jobs.Config{SplitRows: 7})
	if again.Counts.Written != 0 || jobstest.Dump(t, w) != before {
		t.Errorf("a second run wrote %d rows and changed the derived cells; want none", again.Counts.Written)
	}
}

func urlkeyOf(u string) string { k, _ := urlkey.Key(u); return k }

// crashAfter wraps a job so that its splits fail once n have run: a
// process killed mid-run, as far as the table can tell.
type crashAfter struct {
	jobs.Job
	n     int32
	calls *atomic.Int32
}

var errCrash = errors.New("crash")

func (c crashAfter) RunSplit(ctx context.Context, env *jobs.Env, s jobs.Split) error {
	if c.calls.Add(1) > c.n {
		return errCrash
	}
	return c.Job.RunSplit(ctx, env, s)
}

// TestResume runs each job to a crash, then again: the rerun skips the
// splits recorded done, and the table ends as after one uninterrupted run.
func TestResume(t *testing.T) {
	pages := site(60, 3)
	newJobs := func() []jobs.Job { return []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} }
	whole := jobstest.Open(t, t.TempDir(), 0)
	defer whole.Close()
	jobstest.Store(t, whole, pages)
	for _, j := range newJobs() {
		run(t, whole, j, jobs.Config{SplitRows: 6})
	}
	want := jobstest.Dump(t, whole)

	w := jobstest.Open(t, t.TempDir(), 0)
	defer w.Close()
	jobstest.Store(t, w, pages)
	for _, j := range newJobs() {
		calls := &atomic.Int32{}
		_, err := jobs.Run(context.Background(), w, crashAfter{j, 4, calls}, jobs.Config{SplitRows: 6})
		if !errors.Is(err, errCrash) {
			t.Fatalf("%s: the crashing run gave %v, want the crash", j.Name(), err)
		}
		sum := run(t, w, j, jobs.Config{SplitRows: 6})
		if !sum.Resumed || sum.SplitsBefore != 4 || sum.Ran != sum.Splits-4 {
			t.Errorf("%s: rerun resumed=%v with %d splits done before and ran %d of %d; want the 4 done skipped",
				j.Name(), sum.Resumed, sum.SplitsBefore, sum.Ran, sum.Splits)
		}
	}
	if got := jobstest.Dump(t, w); got != want {
		t.Errorf("after crashes and reruns the derived cells differ from one uninterrupted run:\n%s", diff(want, got))
	}
}

func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: want %q\n          got  %q", i+1, x, y)
		}
	}
	return "(equal)"
}

func TestShards(t *testing.T) {
	pages := site(30, 5)
	w := jobstest.Open(t, t.TempDir(), 0)
	defer w.Close()
	jobstest.Store(t, w, pages)
	var ran, splits int
	for i := 0; i < 3; i++ {
		sum := run(t, w, text.Job{}, jobs.Config{SplitRows: 4, Shard: i, Shards: 3})
		ran += sum.Ran
		splits += sum.Splits
		if i > 0 && !sum.Resumed {
			t.Errorf("shard %d started its own run instead of joining shard 0's", i)
		}
	}
	if got := len(jobstest.Column(t, w, "text:lang")); got != len(pages) {
		t.Errorf("after 3 shards, text:lang in %d rows, want %d", got, len(pages))
	}
	// 30 pages and the 30 rows of the unfetched pages they link to.
	if ran != 15 || splits != 15 {
		t.Errorf("the shards ran %d splits of %d, want 15 of 15 (60 rows cut every 4)", ran, splits)
	}
}

// TestIncremental stores a new version of one page after a run: the
// rerun derives the text of that page alone and hashes its text alone.
func TestIncremental(t *testing.T) {
	pages := site(30, 7)
	w := jobstest.Open(t, t.TempDir(), 0)
	defer w.Close()
	jobstest.Store(t, w, pages)
	for _, j := range []jobs.Job{text.Job{}, &rank.Job{}, &dups.Job{}} {
		run(t, w, j, jobs.Config{})
	}
	changed := pages[4]
	changed.HTML = "<title>Changed</title><p>A wholly new text for this page, about something else entirely.</p>"
	changed.Time = jobstest.Base.Add(time.Hour)
	jobstest.Store(t, w, []jobstest.Page{changed})
	sum := run(t, w, text.Job{}, jobs.Config{})
	if sum.Counts.Written != 1 {
		t.Errorf("text rerun wrote %d rows, want 1 (the page with a new version)", sum.Counts.Written)
	}
	d := &dups.Job{}
	run(t, w, d, jobs.Config{})
	if d.Hashed != 1 {
		t.Errorf("dups rerun hashed %d pages, want 1 (the page whose text changed)", d.Hashed)
	}
	full := &dups.Job{}
	run(t, w, full, jobs.Config{Full: true})
	if full.Hashed != len(pages) {
		t.Errorf("dups --full hashed %d pages, want all %d", full.Hashed, len(pages))
	}
}
