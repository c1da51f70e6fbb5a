package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/jsonshape"
)

// TestBrowserSearch drives chromium through query serve's search box over
// a copy of the demo crawl: a search from the header's box, the results
// with marked snippets, a click to the page's version, a bad query's
// message, and the same search as JSON.
func TestBrowserSearch(t *testing.T) {
	needDemo(t)
	chromiumtest.Need(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	if out, err := exec.Command("cp", "-r", demoDB, db).CombinedOutput(); err != nil {
		t.Fatalf("copying the demo store: %v\n%s", err, out)
	}
	buildIndex(t, db)
	base := startServe(t, "--db", db)

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-proxy-server", true), chromedp.WindowSize(1200, 900))
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
	value := func(what, expr string, v any) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v (%s)", what, err, raw)
		}
	}

	step("searching from the header", chromedp.Navigate(base+"tablets"), chromedp.WaitVisible(`form.find input`),
		chromedp.SendKeys(`form.find input`, "cnn news\n"), chromedp.WaitVisible(`ol.hits`))
	var titles, marks []string
	value("the hits", `[...document.querySelectorAll("ol.hits a.hit")].map(a => a.innerText)`, &titles)
	value("the marks", `[...document.querySelectorAll("ol.hits mark")].map(m => m.innerText.toLowerCase())`, &marks)
	if len(titles) == 0 || titles[0] != "CNN - Breaking News, Latest News and Videos" {
		t.Errorf("hits %q, want CNN's front page first", titles)
	}
	for _, m := range marks {
		if m != "cnn" && m != "news" {
			t.Errorf("a snippet marks %q, which is not a word searched for", m)
		}
	}
	if len(marks) == 0 {
		t.Error("no snippet marks a matched word")
	}
	step("hit -> its version", chromedp.Click(`ol.hits a.hit`), chromedp.WaitVisible(`table.versions`))
	var h1, loc string
	value("the heading", `document.querySelector("h1").innerText`, &h1)
	value("the address", `location.search`, &loc)
	if h1 != "http://www.cnn.com/" || !strings.Contains(loc, "v=") {
		t.Errorf("the first hit led to %q (%s), want http://www.cnn.com/'s version", h1, loc)
	}
	step("a bad query", chromedp.Navigate(base+"search"), chromedp.WaitVisible(`form.search`),
		chromedp.SendKeys(`form.search input[name=q]`, `"breaking`+"\n"), chromedp.WaitVisible(`main pre, main p.error`))
	var msg string
	value("the message", `document.querySelector("main").innerText`, &msg)
	if !strings.Contains(msg, "unclosed quote") || !strings.Contains(msg, "character 1") {
		t.Errorf("a query with an unclosed quote shows %q, want a message pointing at the quote", msg)
	}

	req, _ := http.NewRequest("GET", base+"search?q=cnn&site=cnnsi.com", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res jsonshape.SearchResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || len(res.Hits) != 1 || res.Hits[0].Row != "com.cnnsi/" {
		t.Errorf("search JSON for cnn on cnnsi.com = %+v, %v; want one hit, com.cnnsi/", res, err)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, e := range ev.errors {
		t.Errorf("browser: %s", e)
	}
}
