package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
)

// renderPage loads a fetched HTML page in the browser when the render mode
// asks for it: the rendered DOM and screenshot go on p, and its links are
// those of the served HTML and of the rendered DOM together. A render that
// fails records the page failed (kind render) with its served bytes. It
// returns false when the run stopped (ctx) during the render: the page is
// not stored and stays queued, so that a resumed crawl renders it again.
func (r *run) renderPage(ctx context.Context, p *crawlstore.Page, e entry) bool {
	cfg := &r.c.cfg
	if cfg.Render == RenderNever || cfg.Renderer == nil || p.Body == nil || p.Err != "" ||
		p.Status < 200 || p.Status >= 300 || !isHTML(p.MediaType) {
		return true
	}
	ct := p.MediaType
	if p.Charset != "" {
		ct += "; charset=" + p.Charset
	}
	if cfg.Render == RenderAuto && !extract.LooksLikeShell(p.Body, ct) {
		return true
	}
	final, err := url.Parse(p.FinalURL)
	if err != nil {
		return true
	}
	start := time.Now()
	// NB: the run's context: Ctrl-C cuts a render short (a page that
	// never goes quiet would hold the stop for --render-timeout).
	res, err := cfg.Renderer.Render(ctx, RenderJob{
		URL: p.FinalURL, Body: p.Body, ContentType: ct, Fetch: r.subFetch, Screenshot: cfg.Screenshots,
	})
	p.RenderTime = time.Since(start).Round(renderTimeQuantum)
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		p.Err, p.ErrKind = err.Error(), crawlstore.KindRender
		if !strings.HasPrefix(p.Err, "render") {
			p.Err = "render: " + p.Err
		}
		return true
	}
	p.Rendered, p.Screenshot = res.DOM, res.Screenshot
	ex := extract.Extract(p.Body, ct)
	dom := extract.Extract(res.DOM, "text/html; charset=utf-8")
	ex.Links = append(slices.Clip(ex.Links), dom.Links...)
	ex.MetaNoFollow = ex.MetaNoFollow || dom.MetaNoFollow
	p.Links, p.Discovered, p.LinksFound = nil, nil, 0
	r.links(p, e.Entry, final, ex)
	return true
}

// subFetch fetches one request of a page being rendered through the
// crawler's transport (the origin's politeness and timeout), after the
// checks a link gets: the crawl's scope and robots.txt. A request the
// crawl refuses wraps ErrBlocked.
func (r *run) subFetch(ctx context.Context, method, rawURL string, header http.Header) (*SubResponse, error) {
	if method != http.MethodGet && method != http.MethodHead {
		return nil, fmt.Errorf("%w: method %s", ErrBlocked, method)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%w: %q is not an http(s) URL", ErrBlocked, rawURL)
	}
	cu, err := urlkey.Canonical(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrBlocked, rawURL, err)
	}
	if a := r.c.admit(cu, cu.String(), r.domains); a == refusedDomain || a == refusedTrap {
		return nil, fmt.Errorf("%w: %s is outside the crawl", ErrBlocked, u.Host)
	}
	if !r.c.cfg.IgnoreRobots {
		if err := r.c.rob.allowed(ctx, u); err != nil {
			return nil, fmt.Errorf("%w: robots.txt: %w", ErrBlocked, err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBlocked, err)
	}
	for _, h := range []string{"Accept", "Accept-Language", "Referer", "Range"} {
		if v := header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("User-Agent", r.c.cfg.UserAgent)
	resp, err := r.c.tr.RoundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("crawler: fetching %s for a render: %w", u, err)
	}
	defer resp.Body.Close()
	body, _, err := readBody(resp, r.c.cfg.MaxBody)
	if err != nil {
		return nil, fmt.Errorf("crawler: reading %s for a render: %w", u, err)
	}
	return &SubResponse{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}
