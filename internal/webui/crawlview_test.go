package webui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// clock is a test's clock that views may read from the server's
// goroutines.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// queueFixture is the fixture with three pages of a continuous crawl
// saved with due times (one due an hour after t0, one in two hours, one
// in two days), each with an estimated rate.
func queueFixture(t *testing.T) *webtable.WebTable {
	t.Helper()
	ctx := context.Background()
	w := fixture(t, 0)
	cs := w.CrawlStore()
	for _, p := range []struct {
		url  string
		due  time.Duration
		rate float64 // changes a second
	}{{"http://due.test/1", time.Hour, 1.0 / 86400}, {"http://due.test/2", 2 * time.Hour, 0}, {"http://due.test/3", 48 * time.Hour, 0.1 / 86400}} {
		key, _ := urlkey.Key(p.url)
		body := []byte("x")
		pg := &crawlstore.Page{URL: p.url, FinalURL: p.url, Key: key, Time: t0, Status: 200, MediaType: "text/html",
			Body: body, SHA256: crawlstore.SHA256Hex(body),
			Change: crawlstore.Change{Visits: 2, Changes: 1, Span: time.Hour, Rate: p.rate, Due: t0.Add(p.due)}}
		if _, err := cs.SavePage(ctx, pg); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// enqueue adds n new frontier entries to w.
func enqueue(t *testing.T, w *webtable.WebTable, from, n int) {
	t.Helper()
	var es []crawlstore.Entry
	for i := range n {
		es = append(es, crawlstore.Entry{URL: "http://queued.test/p" + itoa(int64(from+i))})
	}
	if _, err := w.CrawlStore().Enqueue(context.Background(), es, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
}

// queueSamples serves the queue fixture and takes three samples of its
// queue an hour apart, from t0: the frontier growing by 2 then 3 entries,
// the due pages coming due one by one.
func queueSamples(t *testing.T) (*UI, string, int64) {
	t.Helper()
	w := queueFixture(t)
	base, err := w.FrontierSize(context.Background(), 0, urlkey.Buckets)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: t0}
	ui, srv := serve(t, w, Options{QueueEvery: -1, Now: c.Now})
	for i, add := range []int{0, 2, 3} {
		enqueue(t, w, i*10, add)
		if err := ui.sampleQueue(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.add(time.Hour)
	}
	return ui, srv.URL, base
}

// TestCrawlView: /crawl shows the queue as counted at each sample (the
// frontier, the pages due now and within a day) as JSON and as a chart of
// two lines of one point per sample, the summary's counts and change
// rates beside them, and the overview links to it.
func TestCrawlView(t *testing.T) {
	w := queueFixture(t)
	base, err := w.FrontierSize(context.Background(), 0, urlkey.Buckets)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: t0}
	ui, srv := serve(t, w, Options{QueueEvery: -1, Now: c.Now})
	var empty jsonCrawl
	getJSON(t, srv, "/crawl", &empty)
	if len(empty.Samples) != 0 {
		t.Errorf("before any count: %d samples, want none", len(empty.Samples))
	}
	if _, body := get(t, srv, "/crawl", false); !strings.Contains(body, "not been counted yet") || strings.Contains(body, "<polyline") {
		t.Errorf("before any count, the page shows a count or a chart:\n%s", body)
	}
	for i, add := range []int{0, 2, 3} {
		enqueue(t, w, i*10, add)
		if err := ui.sampleQueue(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.add(time.Hour)
	}
	var got jsonCrawl
	getJSON(t, srv, "/crawl", &got)
	want := []jsonQueue{
		{t0.Format(time.RFC3339Nano), base, 3, 0, 2},
		{t0.Add(time.Hour).Format(time.RFC3339Nano), base + 2, 3, 1, 2},
		{t0.Add(2 * time.Hour).Format(time.RFC3339Nano), base + 5, 3, 2, 2}, // the third is due in two days
	}
	if len(got.Samples) != len(want) {
		t.Fatalf("samples %+v, want %+v", got.Samples, want)
	}
	for i := range want {
		if got.Samples[i] != want[i] {
			t.Errorf("sample %d = %+v, want %+v", i, got.Samples[i], want[i])
		}
	}
	if s := got.Summary; !s.Ready || s.Fetched == 0 || s.Rates["1e0"] != 1 || s.Rates["1e-1"] != 1 || s.Rates["never"] != 1 {
		t.Errorf("summary %+v, want ready, pages fetched, change rates 1e0: 1, 1e-1: 1, never: 1", s)
	}
	_, body := get(t, srv, "/crawl", false)
	for _, want := range []string{`<td class="num" id="frontier">` + itoa(base+5) + `</td>`, `<td class="num" id="due-now">2</td>`, `<td class="num" id="due-day">2</td>`, "0.1 to 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if n := strings.Count(body, "<polyline"); n != 2 {
		t.Errorf("the chart has %d lines, want 2 (frontier, due now):\n%s", n, body)
	}
	if _, ov := get(t, srv, "/", false); !strings.Contains(ov, `href="/crawl"`) {
		t.Errorf("the overview does not link to /crawl")
	}
}

// TestDrawQueue: the lines go from the left edge to the right by time, the
// largest count at the top, zero at the bottom.
func TestDrawQueue(t *testing.T) {
	c := drawQueue([]queueSample{{At: t0, Frontier: 10}, {At: t0.Add(time.Minute), Frontier: 5, DueNow: 10}, {At: t0.Add(4 * time.Minute), Frontier: 0, DueNow: 5}})
	if c.Max != 10 || len(c.Lines) != 2 {
		t.Fatalf("chart %+v, want a top of 10 and two lines", c)
	}
	if got, want := c.Lines[0].Points, "0.0,0.0 150.0,60.0 600.0,120.0"; got != want {
		t.Errorf("frontier line %q, want %q", got, want)
	}
	if got, want := c.Lines[1].Points, "0.0,120.0 150.0,0.0 600.0,60.0"; got != want {
		t.Errorf("due line %q, want %q", got, want)
	}
	if c := drawQueue([]queueSample{{At: t0, Frontier: 3}}); c.Lines != nil {
		t.Errorf("one sample drew %+v, want no line", c.Lines)
	}
}

// TestQueueKeepsTheLastDay: beyond queueKeep samples the oldest go.
func TestQueueKeepsTheLastDay(t *testing.T) {
	var h queueHistory
	for i := range queueKeep + 5 {
		h.add(queueSample{Frontier: int64(i)}, 0, nil)
	}
	s, _ := h.snapshot()
	if len(s) != queueKeep || s[0].Frontier != 5 || s[len(s)-1].Frontier != queueKeep+4 {
		t.Errorf("%d samples from %d to %d, want %d from 5 to %d", len(s), s[0].Frontier, s[len(s)-1].Frontier, queueKeep, queueKeep+4)
	}
}
