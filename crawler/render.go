package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// RenderMode says which pages a crawl loads in a browser after fetching
// them (--render).
type RenderMode int

// The render modes.
const (
	// RenderNever keeps to the served HTML (the default).
	RenderNever RenderMode = iota
	// RenderAlways renders every HTML page.
	RenderAlways
	// RenderAuto renders an HTML page whose served bytes look like a
	// script's empty shell ([extract.LooksLikeShell]).
	RenderAuto
)

// String returns "never", "always" or "auto".
func (m RenderMode) String() string {
	switch m {
	case RenderAlways:
		return "always"
	case RenderAuto:
		return "auto"
	}
	return "never"
}

// ParseRenderMode is the inverse of RenderMode.String; other text is an
// error wrapping ErrConfig.
func ParseRenderMode(s string) (RenderMode, error) {
	switch s {
	case "never", "":
		return RenderNever, nil
	case "always":
		return RenderAlways, nil
	case "auto":
		return RenderAuto, nil
	}
	return RenderNever, fmt.Errorf("%w: render mode %q is not never, always or auto", ErrConfig, s)
}

// Renderer loads a fetched page in a browser and returns what a reader
// sees. The crawler calls it from many goroutines at once; package render
// implements it over headless Chromium.
type Renderer interface {
	Render(ctx context.Context, job RenderJob) (RenderResult, error)
}

// RenderJob is one page to render.
type RenderJob struct {
	// URL is the page's final URL (canonical).
	URL string
	// Body and ContentType are what the server sent: the browser is given
	// these bytes, the page is not fetched again.
	Body        []byte
	ContentType string
	// Fetch fetches one request the page makes, through the crawler: its
	// origin's politeness, robots.txt and the crawl's scope. It returns an
	// error wrapping ErrBlocked for a request the crawl refuses (another
	// site, robots.txt, a method other than GET or HEAD).
	Fetch func(ctx context.Context, method, rawURL string, header http.Header) (*SubResponse, error)
	// Screenshot asks for a PNG of the first screen.
	Screenshot bool
}

// SubResponse is the answer to one request a rendered page made.
type SubResponse struct {
	Status int
	Header http.Header
	Body   []byte // after Content-Encoding is removed, at most Config.MaxBody bytes
}

// RenderResult is what a render produced.
type RenderResult struct {
	// DOM is the serialised document once the page went quiet (or at the
	// timeout), UTF-8.
	DOM []byte
	// Screenshot is a PNG of the first screen; nil unless asked for.
	Screenshot []byte
	// Requests counts the requests of the page fetched, Blocked those
	// refused (other sites, robots.txt, navigations away, popups,
	// downloads).
	Requests, Blocked int
	// Downloads counts the downloads the page started: refused, never
	// written to disk.
	Downloads int
	// TimedOut is true when the page was still busy at the timeout
	// (endless scrolling, a timer chain): DOM is what it was then.
	TimedOut bool
}

// ErrBlocked is wrapped by RenderJob.Fetch for a request the crawl refuses.
var ErrBlocked = errors.New("crawler: request blocked")

// renderTimeQuantum is how render times are rounded when recorded.
const renderTimeQuantum = time.Millisecond
