package webui

import (
	"net/http"

	"github.com/webtable/webtable/webtable"
)

// screenshot serves the newest screenshot:png of a row (crawl
// --screenshots) as image/png, under the policy of stored bodies: it is
// the crawled site's picture, not ours.
func (ui *UI) screenshot(rw http.ResponseWriter, r *http.Request) {
	h := rw.Header()
	h.Set("Content-Security-Policy", bodyPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	key, err := rowParam(r)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	row, err := ui.w.Get(r.Context(), key, webtable.Query{Column: webtable.ScreenshotColumn})
	if err != nil {
		ui.opts.Logf("webui: %s: %v", r.URL, err)
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	if len(row.Cells) == 0 {
		http.Error(rw, "no screenshot of row "+key, http.StatusNotFound)
		return
	}
	h.Set("Content-Type", "image/png")
	rw.Write(row.Cells[0].Value)
}
