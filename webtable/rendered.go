package webtable

import (
	"context"

	"github.com/webtable/webtable/bigtable"
)

// The columns of rendered pages (crawl --render):
//
//	contents:rendered  the document a browser built from the page and its
//	                   scripts, serialised as UTF-8 HTML, at the fetch's
//	                   time; as many versions as contents:html keeps
//	screenshot:png     a PNG of the first screen of the rendered page
//	                   (crawl --screenshots), at the fetch's time; one
//	                   version
//
// The screenshot family is created by the first crawl that takes
// screenshots ([WebTable.EnsureScreenshots]); stores without it have none.
const (
	ColRendered      = "rendered"
	FamilyScreenshot = "screenshot"
	ColScreenshot    = "png"
	// RenderedColumn and ScreenshotColumn name the two columns in full.
	RenderedColumn   = FamilyContents + ":" + ColRendered
	ScreenshotColumn = FamilyScreenshot + ":" + ColScreenshot
)

// OptionalFamilies are the crawled families that only some crawls create
// (see [WebTable.EnsureScreenshots]), in the order shown.
var OptionalFamilies = []string{FamilyScreenshot}

// setRendered adds p's rendered document and screenshot, if any, to m at
// ts, with set (m.Set or m.SetOnlyVersion).
func setRendered(m *bigtable.Mutation, p *Page, ts bigtable.Timestamp, set func(family, column string, ts bigtable.Timestamp, value []byte)) {
	if p.Rendered != nil {
		set(FamilyContents, ColRendered, ts, p.Rendered)
	}
	if p.Screenshot != nil {
		set(FamilyScreenshot, ColScreenshot, ts, p.Screenshot)
	}
}

// EnsureScreenshots creates the screenshot family when it is missing, with
// its GC policy (one version). A crawl with --screenshots calls it before
// storing a page.
func (w *WebTable) EnsureScreenshots(ctx context.Context) error {
	have, err := listFamilies(ctx, w.store, w.name)
	if err != nil {
		return err
	}
	return ensureFamily(ctx, w.store, w.name, have, FamilyScreenshot, bigtable.MaxVersionsPolicy(1))
}
