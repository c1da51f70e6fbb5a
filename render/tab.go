package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/webtable/webtable/crawler"
)

// errTabDead is wrapped by a render whose tab can no longer be used: it
// crashed, or its page's scripts never gave control back.
var errTabDead = errors.New("render: tab lost")

// tab is one tab of a browser, in its own browser context, rendering one
// page at a time.
type tab struct {
	b      *chromeBrowser
	cache  *cache          // the pool's
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc
	job    atomic.Pointer[jobState] // the render in progress; nil between renders
}

// jobState is what a tab knows of the render in progress. Its counters are
// touched by the tab's event loop and the goroutines answering requests.
type jobState struct {
	job       crawler.RenderJob
	ctx       context.Context // the render's, for the requests it makes
	served    atomic.Bool     // the page's own document was given
	mainFrame atomic.Value    // cdp.FrameID of the page's document
	inflight  atomic.Int32
	lastNet   atomic.Int64 // unix ns of the last request's start or end
	requests  atomic.Int32
	blocked   atomic.Int32
	downloads atomic.Int32  // downloads the page started, refused
	cached    atomic.Int32  // answered from the pool's cache
	loaded    chan struct{} // closed at the load event of the page's document
	loadOnce  sync.Once
	loads     sync.Map     // cdp.LoaderID -> true: the documents of the tab that fired load
	loader    atomic.Value // cdp.LoaderID of the page's document, once Page.navigate said
	crashed   chan struct{}
	crashOnce sync.Once
}

func (js *jobState) touch() { js.lastNet.Store(time.Now().UnixNano()) }

// checkLoaded closes js.loaded once the page's document fired load.
func (js *jobState) checkLoaded() {
	if l, ok := js.loader.Load().(cdp.LoaderID); ok {
		if _, fired := js.loads.Load(l); fired {
			js.loadOnce.Do(func() { close(js.loaded) })
		}
	}
}

// newTab opens a tab in b, in a browser context of its own, intercepting
// every request and running pageScript in every document.
func newTab(b *chromeBrowser, c *cache) (*tab, error) {
	t := &tab{b: b, cache: c}
	t.ctx, t.cancel = chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(t.listen))
	// NB: the first Do opens the tab and ties it to its context (see
	// startBrowser); a browser that hangs ends it after 10 s.
	hung := time.AfterFunc(10*time.Second, t.cancel)
	err := chromedp.Do(t.ctx)
	hung.Stop()
	ctx, cancel := context.WithTimeout(t.ctx, 10*time.Second)
	defer cancel()
	if err == nil {
		_, err = chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
	}
	if err == nil {
		_, err = chromedp.Call(ctx, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true})
	}
	if err == nil {
		_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageScript})
	}
	if err == nil {
		err = t.denyDownloads(ctx)
	}
	if err == nil {
		err = quietDomains(ctx)
	}
	if err != nil {
		t.close()
		return nil, fmt.Errorf("render: opening a tab: %w", err)
	}
	return t, nil
}

// close closes the tab and its browser context, without waiting for a
// hung renderer.
func (t *tab) close() {
	done := make(chan struct{})
	go func() {
		t.cancel()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// listen runs in the tab's event loop: it must return fast and send no
// command, so requests are answered on goroutines of their own.
func (t *tab) listen(ev any) {
	js := t.job.Load()
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		if js == nil {
			go t.fail(ev.RequestID, network.ErrorReasonAborted)
			return
		}
		js.inflight.Add(1)
		js.touch()
		go t.answer(js, ev)
	case *page.EventLifecycleEvent:
		// NB: the load of the page's own document, by its loader: the
		// document the tab showed before fires its events late.
		if js != nil && ev.Name == "load" {
			js.loads.Store(ev.LoaderID, true)
			js.checkLoaded()
		}
	case *inspector.EventTargetCrashed:
		if js != nil {
			js.crashOnce.Do(func() { close(js.crashed) })
		}
	case *page.EventJavascriptDialogOpening:
		go chromedp.Call(t.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
	}
}

// answer answers one request of the page: its own document with the
// served bytes, a navigation of the page away with a refusal, anything
// else through the crawler.
func (t *tab) answer(js *jobState, ev *fetch.EventRequestPaused) {
	defer js.touch()
	defer js.inflight.Add(-1)
	if ev.ResourceType == network.ResourceTypeDocument {
		if js.served.CompareAndSwap(false, true) {
			js.mainFrame.Store(ev.FrameID)
			t.fulfill(ev.RequestID, http.StatusOK, http.Header{"Content-Type": {js.job.ContentType}}, js.job.Body)
			return
		}
		if f, _ := js.mainFrame.Load().(cdp.FrameID); f == ev.FrameID {
			// NB: the page navigating away is not this render's to follow.
			// A 204 leaves the document in place; a refusal would replace
			// it with an error page.
			js.blocked.Add(1)
			t.fulfill(ev.RequestID, http.StatusNoContent, nil, nil)
			return
		}
	}
	keep := cacheable(ev.ResourceType, ev.Request.Method)
	if keep {
		if resp, ok := t.cache.get(ev.Request.URL); ok {
			js.cached.Add(1)
			t.fulfill(ev.RequestID, resp.Status, resp.Header, resp.Body)
			return
		}
	}
	hdr := http.Header{}
	for k, v := range ev.Request.Headers {
		if s, ok := v.(string); ok {
			hdr.Set(k, s)
		}
	}
	resp, err := js.job.Fetch(js.ctx, ev.Request.Method, ev.Request.URL, hdr)
	switch {
	case errors.Is(err, crawler.ErrBlocked):
		js.blocked.Add(1)
		t.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
	case err != nil:
		js.requests.Add(1)
		t.fail(ev.RequestID, network.ErrorReasonFailed)
	default:
		js.requests.Add(1)
		if keep {
			t.cache.put(ev.Request.URL, resp)
		}
		t.fulfill(ev.RequestID, resp.Status, resp.Header, resp.Body)
	}
}

// fulfill answers a paused request. The body is already decoded: the
// headers that described its encoding on the wire are left out.
func (t *tab) fulfill(id fetch.RequestID, status int, h http.Header, body []byte) {
	var entries []*fetch.HeaderEntry
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive":
			continue
		}
		for _, v := range vs {
			entries = append(entries, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	ctx, cancel := context.WithTimeout(t.ctx, 10*time.Second)
	defer cancel()
	chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: id, ResponseCode: int64(status), ResponseHeaders: entries, Body: body})
}

// fail refuses a paused request.
func (t *tab) fail(id fetch.RequestID, reason network.ErrorReason) {
	ctx, cancel := context.WithTimeout(t.ctx, 10*time.Second)
	defer cancel()
	chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: reason})
}
