package render

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// quietDomains turns off the DevTools domains chromedp enables in every
// tab that a render does not use: Network (the crawler sees each request
// through Fetch), DOM and CSS (the document is read by a script, no node
// is queried), Log. Each sends the tab's events over the pipe, which the
// browser builds and chromedp decodes.
func quietDomains(ctx context.Context) error {
	calls := []struct {
		name string
		call func() error
	}{
		{"Network", func() error { _, err := chromedp.Call(ctx, network.Disable, cdp.Empty{}); return err }},
		{"CSS", func() error { _, err := chromedp.Call(ctx, css.Disable, cdp.Empty{}); return err }},
		{"DOM", func() error { _, err := chromedp.Call(ctx, dom.Disable, cdp.Empty{}); return err }},
		{"Log", func() error { _, err := chromedp.Call(ctx, log.Disable, cdp.Empty{}); return err }},
	}
	for _, c := range calls {
		if err := c.call(); err != nil {
			return fmt.Errorf("turning off the DevTools domain %s: %w", c.name, err)
		}
	}
	return nil
}
