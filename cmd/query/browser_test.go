package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/webtable/webtable/internal/chromiumtest"
)

// chromium is Debian's browser (chromiumtest.Exec); .ci/run installs it.
// The test never downloads a browser.
const chromium = chromiumtest.Exec

// screenshots are the pictures of the interface in docs/querying.md, rewritten by
// go test ./cmd/query -run TestBrowser -update.
var screenshots = map[string]string{
	"overview": filepath.Join("..", "..", "docs", "query-serve-overview.png"),
	"page":     filepath.Join("..", "..", "docs", "query-serve-page.png"),
}

// browserEvents collects what the browser reports: every request's URL,
// and errors logged by the interface's own pages.
type browserEvents struct {
	mu       sync.Mutex
	requests map[network.RequestID]string
	blocked  map[network.RequestID]bool // refused by the browser before leaving it
	errors   []string
	uiFrame  cdp.FrameID // the top frame: the interface's pages
}

func (e *browserEvents) listen(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if e.requests == nil {
			e.requests, e.blocked = map[network.RequestID]string{}, map[network.RequestID]bool{}
		}
		e.requests[ev.RequestID] = ev.Request.URL
		if ev.Type == network.ResourceTypeDocument && e.uiFrame == "" {
			e.uiFrame = ev.FrameID
		}
		if ev.FrameID != e.uiFrame && ev.Type == network.ResourceTypeDocument && !strings.Contains(ev.Request.URL, "/body?") {
			e.errors = append(e.errors, "a frame navigated to "+ev.Request.URL)
		}
	case *network.EventLoadingFailed:
		if ev.BlockedReason != "" && e.blocked != nil {
			e.blocked[ev.RequestID] = true
		}
	case *runtime.EventExceptionThrown:
		e.errors = append(e.errors, "exception: "+ev.ExceptionDetails.Text)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			e.errors = append(e.errors, "console.error")
		}
	case *log.EventEntryAdded:
		// NB: the stored pages' own blocked scripts and loads are reported
		// here too, against their /body URL: those are the sandbox at work.
		if ev.Entry.Level == log.EntryLevelError && !strings.Contains(ev.Entry.URL, "/body?") && !strings.Contains(ev.Entry.Text, "/body?") &&
			!strings.Contains(ev.Entry.Text, "sandboxed") {
			e.errors = append(e.errors, ev.Entry.Text+" ("+ev.Entry.URL+")")
		}
	}
}

// TestBrowser drives Debian's chromium over the demo crawl through "query
// serve": from the overview to cnn.com, to http://www.cnn.com/, its three
// versions and the anchors from cnnsi.com and my.look.ca, then a diff. No
// request may leave 127.0.0.1 and the interface's pages may log no error.
func TestBrowser(t *testing.T) {
	needDemo(t)
	chromiumtest.Need(t)
	base := startServe(t, "--db", demoDB)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var ev browserEvents
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(ev.listen))
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTime()

	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	value := func(what string, expr string, v any) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v (%s)", what, err, raw)
		}
	}
	shot := func(what string) []byte {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot of the %s: %v", what, err)
		}
		return b
	}

	step("opening the overview", chromedp.Navigate(base), chromedp.WaitVisible(`svg[aria-label="fetches over time"]`))
	overview := shot("overview")
	step("overview -> cnn.com", chromedp.Click(`a[href="/domain?name=cnn.com"]`), chromedp.WaitVisible(`table.rows`))
	var h1 string
	value("the heading", `document.querySelector("h1").innerText`, &h1)
	if h1 != "cnn.com" {
		t.Errorf("after clicking cnn.com the heading is %q", h1)
	}
	step("cnn.com -> http://www.cnn.com/", chromedp.Click(`a[href="/page?row=com.cnn.www%2f"]`), chromedp.WaitVisible(`table.versions`), chromedp.WaitVisible(`iframe.body`))
	var versions int
	var anchors map[string]string
	value("the heading", `document.querySelector("h1").innerText`, &h1)
	value("the versions", `document.querySelectorAll("table.versions tr").length - 1`, &versions)
	value("the anchors", `Object.fromEntries([...document.querySelectorAll("table.anchors tr")].slice(1).map(r => [r.cells[0].innerText, r.cells[1].innerText]))`, &anchors)
	if h1 != "http://www.cnn.com/" || versions != 3 {
		t.Errorf("page %q with %d versions, want http://www.cnn.com/ with 3", h1, versions)
	}
	if anchors["cnnsi.com"] != "CNN" || anchors["my.look.ca"] != "CNN.com" {
		t.Errorf("anchors %v, want cnnsi.com = CNN and my.look.ca = CNN.com", anchors)
	}
	// The stored page's frame reports its load in the page's resource timing.
	step("loading the stored version", chromedp.Poll[chromedp.Void](`performance.getEntriesByType("resource").some(e => e.name.includes("/body?") && e.responseEnd > 0)`,
		chromedp.WithPollingTimeout(20*time.Second)))
	page := shot("page")
	step("opening a diff", chromedp.Click(`a.diff`), chromedp.WaitVisible(`table.diff`))
	var diffRows int
	value("the diff", `document.querySelectorAll("table.diff tr.del, table.diff tr.ins").length`, &diffRows)
	if diffRows == 0 {
		t.Errorf("the diff of two versions of www.cnn.com/ shows no changed line")
	}

	ev.mu.Lock()
	defer ev.mu.Unlock()
	for id, r := range ev.requests {
		u, err := url.Parse(r)
		if (err != nil || (u.Scheme != "data" && u.Hostname() != "127.0.0.1")) && !ev.blocked[id] {
			t.Errorf("the browser requested %s: not 127.0.0.1", r)
		}
	}
	if len(ev.requests) < 4 {
		t.Errorf("only %d requests seen (%q): are network events on?", len(ev.requests), ev.requests)
	}
	for _, e := range ev.errors {
		t.Errorf("browser: %s", e)
	}
	if *update {
		for name, shot := range map[string][]byte{"overview": overview, "page": page} {
			if err := os.MkdirAll(filepath.Dir(screenshots[name]), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(screenshots[name], shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
