package webui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"github.com/webtable/webtable/internal/chromiumtest"
)

// TestBrowserCrawlView opens /crawl in chromium after three counts of the
// queue: the chart is drawn (two lines of three points, in the colours of
// the style sheet, so the page's Content Security Policy let the sheet
// apply), the counts show, and the browser reports nothing refused.
func TestBrowserCrawlView(t *testing.T) {
	chromiumtest.Need(t)
	_, url, base := queueSamples(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("no-proxy-server", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var logs []string
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if ev, ok := ev.(*log.EventEntryAdded); ok {
			mu.Lock()
			logs = append(logs, ev.Entry.Text)
			mu.Unlock()
		}
	}))
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTime()
	type view struct {
		Lines    int     `json:"lines"`
		Points   []int   `json:"points"`
		Stroke   string  `json:"stroke"`
		Width    float64 `json:"width"`
		Frontier string  `json:"frontier"`
		DueNow   string  `json:"dueNow"`
	}
	const probe = `(() => {
		const ls = [...document.querySelectorAll("figure.queue svg polyline")];
		return {lines: ls.length, points: ls.map(l => l.points.numberOfItems),
			stroke: ls.length ? getComputedStyle(ls[0]).stroke : "",
			width: document.querySelector("figure.queue svg").getBoundingClientRect().width,
			frontier: document.getElementById("frontier").textContent,
			dueNow: document.getElementById("due-now").textContent};
	})()`
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/crawl"), chromedp.WaitVisible(`figure.queue`)); err != nil {
		t.Fatalf("/crawl in chromium: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[view](probe))
	if err != nil {
		t.Fatalf("reading /crawl in chromium: %v", err)
	}
	if got.Lines != 2 || len(got.Points) != 2 || got.Points[0] != 3 || got.Points[1] != 3 {
		t.Errorf("chart: %d lines of %v points, want 2 of 3", got.Lines, got.Points)
	}
	if got.Stroke != "rgb(26, 95, 180)" { // --accent in style.css
		t.Errorf("the frontier line is stroked %q, want the style sheet's rgb(26, 95, 180)", got.Stroke)
	}
	if got.Width != chartWidth {
		t.Errorf("the chart is %v px wide, want %d", got.Width, chartWidth)
	}
	if got.Frontier != itoa(base+5) || got.DueNow != "2" {
		t.Errorf("counts shown: queued %q, due now %q; want %d and 2", got.Frontier, got.DueNow, base+5)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, l := range logs {
		if strings.Contains(l, "Refused") || strings.Contains(l, "violates") {
			t.Errorf("the browser refused something on /crawl: %s", l)
		}
	}
}
