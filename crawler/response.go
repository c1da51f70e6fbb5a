package crawler

import (
	"cmp"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
)

// notModified completes a 304: the validators, media type and charset of
// the stored content carry over, and the links of the stored content are
// followed (a recrawl must reach the pages behind an unchanged one). It
// returns false after a store failure.
func (r *run) notModified(p *crawlstore.Page, e entry, last crawlstore.Fetch) bool {
	p.ETag = cmp.Or(p.ETag, last.ETag)
	p.LastModified = cmp.Or(p.LastModified, last.LastModified)
	p.MediaType = cmp.Or(p.MediaType, last.MediaType)
	p.Charset = cmp.Or(p.Charset, last.Charset)
	if !isHTML(p.MediaType) || p.Redirected {
		return true
	}
	body, ok, err := r.c.store.Content(r.storeCtx, p.Key)
	if err != nil {
		r.fail(fmt.Errorf("%w: content of %s: %w", ErrStore, p.URL, err))
		return false
	}
	if !ok {
		return true
	}
	ct := "text/html"
	if p.Charset != "" {
		ct += "; charset=" + p.Charset
	}
	final, err := urlkey.Canonical(p.FinalURL)
	if err != nil {
		return true
	}
	r.links(p, e.Entry, final, extract.Extract(body, ct))
	return true
}

// fill completes p from what the transport captured and colly returned.
func (r *run) fill(p *crawlstore.Page, e entry, u *url.URL, capt *capture, err error) {
	cfg := &r.c.cfg
	if capt.resp == nil || err != nil {
		p.Err, p.ErrKind = errText(err), errKind(err)
		if capt.resp != nil {
			p.Status = capt.resp.StatusCode
		}
		return
	}
	resp := capt.resp
	final := u
	// NB: only a followed redirect changes the URL; with one hop the final
	// URL is the requested one even if colly's URL parser spelled it
	// differently on the wire.
	if capt.hops > 1 && resp.Request != nil && resp.Request.URL != nil {
		if fu, ferr := urlkey.Canonical(resp.Request.URL.String()); ferr == nil {
			final = fu
		}
	}
	p.FinalURL = final.String()
	p.Redirected = urlkey.KeyOf(final) != urlkey.KeyOf(u)
	p.Status = resp.StatusCode
	p.ETag = resp.Header.Get("ETag")
	p.LastModified = resp.Header.Get("Last-Modified")
	ct := resp.Header.Get("Content-Type")
	if mt, params, perr := mime.ParseMediaType(ct); perr == nil {
		p.MediaType = strings.ToLower(mt)
		p.Charset = strings.ToLower(params["charset"])
	} else if ct != "" {
		mt, _, _ := strings.Cut(ct, ";")
		p.MediaType = strings.ToLower(strings.TrimSpace(mt))
	}
	p.Length = int64(len(capt.body))
	p.Truncated = capt.truncated
	r.stats.bytes(p.Length)

	switch {
	case resp.StatusCode == http.StatusNotModified:
		p.NotModified = true
		return
	case resp.StatusCode >= 400:
		p.Err, p.ErrKind = fmt.Sprintf("http status %d %s", resp.StatusCode, http.StatusText(resp.StatusCode)), crawlstore.KindHTTP
		return
	case resp.StatusCode >= 300:
		// A redirect not followed: its target was met in this run (see
		// checkRedirect), or it had no usable Location. No content.
		if loc, err := resp.Location(); err == nil {
			if lu, err := urlkey.Canonical(loc.String()); err == nil && urlkey.KeyOf(lu) != urlkey.KeyOf(final) {
				p.Location = lu.String()
				if r.c.admit(lu, p.Location, r.domains) == otherShard {
					// Another shard's host (see checkRedirect): queued
					// for that shard at the depth of the page.
					p.Discovered = append(p.Discovered, crawlstore.Entry{URL: p.Location, Key: urlkey.KeyOf(lu), Depth: p.Depth})
				}
			}
		}
		return
	}
	if sniffed(p.MediaType) && len(capt.body) > 0 {
		p.MediaType, _, _ = strings.Cut(http.DetectContentType(capt.body), ";")
	}
	html := isHTML(p.MediaType)
	if html || cfg.StoreAll {
		p.Body = capt.body
		if p.Body == nil {
			p.Body = []byte{}
		}
		p.SHA256 = crawlstore.SHA256Hex(p.Body)
		p.Header = wireHeader(resp, capt.encoding)
	}
	if !html {
		return
	}
	ex := extract.Extract(capt.body, ct)
	if p.Charset == "" {
		p.Charset = ex.Charset
	}
	r.links(p, e.Entry, final, ex)
}

// isHTML reports whether a response of this media type is an HTML page.
func isHTML(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

// sniffed reports whether a declared media type is replaced by the one
// sniffed from the body: when it is missing or says "unknown", as in the
// WHATWG MIME Sniffing standard (a declared type, even a wrong one such as
// text/plain for HTML or text/html for a binary, is trusted).
func sniffed(mediaType string) bool {
	switch mediaType {
	case "", "unknown/unknown", "application/unknown", "*/*":
		return true
	}
	return false
}

// save hands p to the store, queues the new links and updates the
// statistics. It reports whether the fetch succeeded.
func (r *run) save(p *crawlstore.Page, u *url.URL) bool {
	began := time.Now()
	res, err := r.c.store.SavePage(r.storeCtx, p)
	r.c.cfg.Hooks.stored(time.Since(began))
	if err != nil {
		r.fail(fmt.Errorf("%w: saving %s: %w", ErrStore, p.URL, err))
		return false
	}
	if len(res.States) != len(p.Discovered) {
		r.fail(fmt.Errorf("%w: SavePage returned %d states for %d links", ErrStore, len(res.States), len(p.Discovered)))
		return false
	}
	// Every discovered URL is now queued or needs nothing more in this run
	// (see seenCache), as is the page.
	keys := make([]string, 0, len(p.Discovered)+1)
	for _, e := range p.Discovered {
		keys = append(keys, e.Key)
	}
	r.seen.add(append(keys, p.Key)...)
	// The store queued what it had not seen (Frontier set): those of this
	// shard's hosts go to the scheduler; the rest wait in the store.
	for _, e := range p.Discovered {
		if e.Frontier == "" {
			continue
		}
		if host := crawlstore.HostOf(e.URL); r.c.mine(host) {
			r.sched.enqueued(host, e)
		}
	}
	r.stats.page(p, res.NewVersion, r.sched)
	return p.Err == ""
}
