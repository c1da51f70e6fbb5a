package webui

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/webtable/webtable/internal/chromiumtest"
)

// chromium is Debian's browser (chromiumtest.Exec); .ci/run installs it.
// The test never downloads a browser.
const chromium = chromiumtest.Exec

// TestBrowserHostilePage opens the hostile stored page in chromium, in the
// page view's frame and on its own, and checks that it ran nothing, opened
// no dialog, loaded nothing from elsewhere and navigated nowhere.
func TestBrowserHostilePage(t *testing.T) {
	chromiumtest.Need(t)
	w := fixture(t, 0)
	_, srv := serve(t, w, Options{})
	var evil jsonPage
	getJSON(t, srv, "/page?url=http://evil.test/", &evil)
	body := srv.URL + "/body?row=test.evil%2f&ts=" + itoa(evil.Versions[0].Timestamp)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-proxy-server", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var (
		mu       sync.Mutex
		requests = map[network.RequestID]string{}
		blocked  = map[network.RequestID]string{}
		logs     []string
		dialogs  []string
		frames   []string // frames navigated, by URL
	)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests[ev.RequestID] = ev.Request.URL
		case *network.EventLoadingFailed:
			if ev.BlockedReason != "" {
				blocked[ev.RequestID] = string(ev.BlockedReason)
			}
		case *log.EventEntryAdded:
			logs = append(logs, ev.Entry.Text)
		case *page.EventJavascriptDialogOpening:
			dialogs = append(dialogs, ev.Message)
		case *page.EventFrameNavigated:
			frames = append(frames, ev.Frame.URL)
		}
	}))
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTime()

	loaded := chromedp.Poll[chromedp.Void](`performance.getEntriesByType("resource").some(e => e.name.includes("/body?") && e.responseEnd > 0)`,
		chromedp.WithPollingTimeout(20*time.Second))
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/page?url=http://evil.test/"), chromedp.WaitVisible(`iframe.body`), loaded); err != nil {
		t.Fatalf("page view of evil.test: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(body), chromedp.WaitReady(`body`)); err != nil {
		t.Fatalf("evil.test's body on its own: %v", err)
	}
	// A meta refresh or a script would have navigated by now: the page's own
	// load is over, and a second navigation of this tab makes sure of it.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/tablets")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// NB: the exact origin, port included: another port of 127.0.0.1 is
	// another origin, and could be any program of the machine.
	for id, r := range requests {
		if u, err := url.Parse(r); err != nil || u.Scheme+"://"+u.Host != srv.URL {
			if blocked[id] == "" {
				t.Errorf("the browser requested %s: not the interface's origin %s", r, srv.URL)
			}
		}
	}
	// The browser says what it refused; each refusal is the sandbox at work.
	all := strings.Join(logs, "\n")
	for _, want := range []string{
		"Refused to execute the redirect specified via '<meta http-equiv='refresh'",
		"Blocked script execution in '" + body + "' because the document's frame is sandboxed",
		"Loading the image 'http://attacker.test/pixel.png' violates the following Content Security Policy",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the browser did not report %q; its log:\n%s", want, all)
		}
	}
	for _, d := range dialogs {
		t.Errorf("a script of the stored page opened a dialog: %q", d)
	}
	for _, f := range frames {
		if !strings.HasPrefix(f, srv.URL+"/") {
			t.Errorf("a frame navigated to %s", f)
		}
	}
}
