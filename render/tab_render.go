package render

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/webtable/webtable/crawler"
)

// quietState is what pageScript's window.__webtable reports.
type quietState struct {
	Timers int   `json:"timers"`
	Idle   int64 `json:"idle"` // ms since the document last changed
}

// pollEvery is how often a render asks the page whether it is done.
const pollEvery = 20 * time.Millisecond

// readGrace is how long, past the timeout, a render waits for the
// document of a page still busy: at most 2 s, and at most half the
// timeout.
func readGrace(timeout time.Duration) time.Duration { return min(2*time.Second, timeout/2) }

// render loads job in the tab and waits until the page is quiet or the
// timeout. An error wrapping errTabDead means the tab must be replaced.
func (t *tab) render(ctx context.Context, job crawler.RenderJob, opts Options) (crawler.RenderResult, error) {
	var res crawler.RenderResult
	js := &jobState{job: job, loaded: make(chan struct{}), crashed: make(chan struct{})}
	js.touch()
	deadline := time.Now().Add(opts.Timeout)
	rctx, cancel := context.WithDeadline(t.ctx, deadline)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	js.ctx = rctx
	t.job.Store(js)
	defer t.job.Store(nil)

	if _, err := chromedp.Call(rctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
		return res, fmt.Errorf("%w: enabling scripts: %v", errTabDead, err)
	}
	nav, err := chromedp.Call(rctx, page.Navigate, page.NavigateParams{URL: job.URL})
	if err != nil || nav.ErrorText != "" {
		if crashed(js) {
			return res, fmt.Errorf("%w: the page crashed its tab", errTabDead)
		}
		if err == nil {
			err = errors.New(nav.ErrorText)
		}
		return res, fmt.Errorf("render: navigating to %s: %w", job.URL, err)
	}
	js.loader.Store(nav.LoaderID)
	js.checkLoaded()
	timedOut, err := t.waitQuiet(rctx, js, opts)
	if err != nil {
		return res, err
	}
	res.TimedOut = timedOut
	// NB: a page still running at the timeout is read with a little grace:
	// its document is what it was, unless a script never yields.
	// NB: a page that went quiet keeps the rest of its timeout to be read:
	// on a loaded machine a read took more than 2 s.
	dctx, dcancel := context.WithDeadline(t.ctx, deadline.Add(readGrace(opts.Timeout)))
	defer dcancel()
	dom, err := chromedp.Run(dctx, chromedp.Evaluate[string](domScript))
	if err != nil {
		if crashed(js) {
			return res, fmt.Errorf("%w: the page crashed its tab", errTabDead)
		}
		return res, fmt.Errorf("%w: the page's scripts did not let its document be read within %v: %v", errTabDead, opts.Timeout, err)
	}
	res.DOM = []byte(dom)
	if job.Screenshot {
		chromedp.Do(dctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		if png, err := chromedp.Run(dctx, chromedp.CaptureScreenshot()); err == nil {
			res.Screenshot = png
		}
	}
	res.Requests, res.Blocked, res.Downloads = int(js.requests.Load()), int(js.blocked.Load()), int(js.downloads.Load())
	// The page's scripts and timers stop here, until the next render.
	// NB: not a navigation to about:blank, which cost 250-330 ms a page
	// on the shared machine (waiting for its load).
	t.job.Store(nil)
	if _, err := chromedp.Call(dctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		return res, fmt.Errorf("%w: stopping the scripts of %s: %v", errTabDead, job.URL, err)
	}
	return res, nil
}

// waitQuiet waits until the page has loaded, has no request in flight, no
// short timer pending and an unchanged document for opts.Quiet; it scrolls
// to the bottom meanwhile, to start lazy loads. It returns timedOut at
// the timeout (the page never went quiet), and an error when the tab
// crashed.
func (t *tab) waitQuiet(ctx context.Context, js *jobState, opts Options) (timedOut bool, err error) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-js.crashed:
			return false, fmt.Errorf("%w: the page crashed its tab", errTabDead)
		case <-ctx.Done():
			return true, nil
		case <-tick.C:
		}
		select {
		case <-js.loaded:
		default:
			continue
		}
		if js.inflight.Load() > 0 || time.Since(time.Unix(0, js.lastNet.Load())) < opts.Quiet {
			continue
		}
		q, err := chromedp.Run(ctx, chromedp.Evaluate[quietState](`window.__webtable ? window.__webtable(true) : {timers: 0, idle: 1e9}`))
		if err != nil {
			if ctx.Err() != nil {
				return true, nil
			}
			continue // a document being replaced
		}
		if q.Timers == 0 && q.Idle >= opts.Quiet.Milliseconds() && js.inflight.Load() == 0 {
			return false, nil
		}
	}
}

// crashed reports whether the tab of js crashed.
func crashed(js *jobState) bool {
	select {
	case <-js.crashed:
		return true
	default:
		return false
	}
}
