package render

import (
	"context"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// denyDownloads refuses every download of the tab's browser context, so
// that a page's download never reaches the disk, and counts the downloads
// its page starts (the browser tells of each, refused, by its frame).
//
// NB: the main frame of a page target has the target's id: a download the
// page starts names it.
func (t *tab) denyDownloads(ctx context.Context) error {
	c := chromedp.FromContext(t.ctx)
	frame := string(c.Target.TargetID)
	chromedp.ListenBrowser(t.ctx, func(ev any) {
		d, ok := ev.(*browser.EventDownloadWillBegin)
		if !ok || string(d.FrameID) != frame {
			return
		}
		if js := t.job.Load(); js != nil {
			js.downloads.Add(1)
			js.blocked.Add(1)
		}
	})
	on := true
	_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: c.BrowserContextID, EventsEnabled: &on})
	return err
}
