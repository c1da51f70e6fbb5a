package webui

import (
	"net/http"
	"strconv"

	"github.com/webtable/webtable/webtable"
)

// bodyPolicy is the Content Security Policy of a stored body: a sandbox
// without scripts, forms, navigation of other frames or same-origin access,
// and no request of any kind (images, styles, frames, prefetches).
const bodyPolicy = "sandbox; default-src 'none'"

// body serves one stored version of a page, as stored, under bodyPolicy:
// HTML as text/html (in a sandbox that runs nothing and loads nothing),
// anything else as text/plain. It is shown in the page view's
// <iframe sandbox>.
func (ui *UI) body(rw http.ResponseWriter, r *http.Request) {
	h := rw.Header()
	h.Set("Content-Security-Policy", bodyPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	fail := func(err error) {
		status := ui.errorStatus(r, err)
		if wantsJSON(r) {
			writeJSON(rw, status, map[string]string{"error": err.Error()})
			return
		}
		http.Error(rw, err.Error(), status)
	}
	key, err := rowParam(r)
	if err != nil {
		fail(err)
		return
	}
	ts, err := tsParam(r, "ts")
	if err != nil {
		fail(err)
		return
	}
	if ts == 0 {
		fail(badRequest("name the version with ts=MICROSECONDS (see the versions list)"))
		return
	}
	ctx := r.Context()
	body, err := ui.version(ctx, key, ts)
	if err != nil {
		fail(err)
		return
	}
	if body == nil {
		fail(notFound("row %q has no version at %d", key, ts))
		return
	}
	row, err := ui.w.Get(ctx, key, webtable.Query{Family: webtable.FamilyFetch})
	if err != nil {
		fail(err)
		return
	}
	f, err := webtable.FetchOf(row)
	if err != nil {
		fail(err)
		return
	}
	mt, err := ui.w.Get(ctx, key, webtable.Query{Column: webtable.FamilyMIME + ":type"})
	if err != nil {
		fail(err)
		return
	}
	ctype := "text/plain; charset=utf-8"
	if len(mt.Cells) == 0 || isHTML(string(mt.Cells[0].Value)) {
		ctype = "text/html"
		if f.Charset != "" && isToken(f.Charset) {
			ctype += "; charset=" + f.Charset
		}
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	rw.Write(body)
}

// isToken reports whether s is an HTTP token (RFC 9110), the only form a
// charset taken from the store may have in a header.
func isToken(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '+' || c == ':') {
			return false
		}
	}
	return true
}
