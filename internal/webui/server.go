package webui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/webtable/webtable/webtable"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Options configure [New]. The zero value is usable.
type Options struct {
	// PageSize is how many rows a list view shows at once. The default value
	// is 50.
	PageSize int
	// SummaryMaxAge is how old the background summary may grow before a
	// request starts building a new one; a summary that took T to build
	// is kept at least 10 T, so that big tables are not scanned without
	// pause. The default value is 1 minute.
	SummaryMaxAge time.Duration
	// Logf receives errors that a view cannot show (a failed summary, a
	// client gone mid-response). The default value is log.Printf.
	Logf func(format string, args ...any)
	// Now is the clock (tests set it). The default value is time.Now.
	Now func() time.Time
	// ListenAddr is the address the server listens on (host:port). When
	// set, a request is answered only if its Host header is that address,
	// or a loopback name (localhost, 127.0.0.1, [::1]) with its port, or,
	// when listening on every interface, an IP literal with its port;
	// any other gets 421 Misdirected Request, so that a web page cannot
	// read the table through a name it points at this machine (DNS
	// rebinding). The default value is "": every Host is answered.
	ListenAddr string
	// Search answers the search box (/search); nil when the table has no
	// search index. The default value is nil.
	Search Searcher
	// QueueEvery is how often the server counts the queue (the frontier
	// and the due pages) for the chart of /crawl (queue.go); a count that
	// took T waits at least 10 T. Negative: never in the background (the
	// chart has only the samples taken otherwise). The default value is 1
	// minute.
	QueueEvery time.Duration
}

func (o Options) withDefaults() Options {
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	if o.QueueEvery == 0 {
		o.QueueEvery = time.Minute
	}
	if o.SummaryMaxAge <= 0 {
		o.SummaryMaxAge = time.Minute
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// UI is the web interface over one WebTable: an [http.Handler] that only
// reads. Its methods are safe for concurrent use.
type UI struct {
	w     *webtable.WebTable
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template

	hosts  *hostGuard      // nil: every Host
	ctx    context.Context // ends when Close is called
	cancel context.CancelFunc
	sum    summaries
	queue  queueHistory // queue.go
	wg     sync.WaitGroup

	// beforeBuild, when set (by tests, before the first build), runs
	// before each summary build.
	beforeBuild func(ctx context.Context)
}

// New returns the interface over w and starts building its summary in the
// background. It does not close w; call Close to stop the background work
// before closing w.
func New(w *webtable.WebTable, opts Options) (*UI, error) {
	return newUI(w, opts, nil)
}

func newUI(w *webtable.WebTable, opts Options, beforeBuild func(context.Context)) (*UI, error) {
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ui := &UI{w: w, opts: opts.withDefaults(), pages: pages, ctx: ctx, cancel: cancel, mux: http.NewServeMux()}
	ui.sum.ready = make(chan struct{})
	ui.beforeBuild = beforeBuild
	ui.hosts, _ = newHostGuard(ui.opts.ListenAddr)
	static, err := fs.Sub(assets, "static")
	if err != nil {
		cancel()
		return nil, fmt.Errorf("webui: %w", err)
	}
	ui.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	ui.mux.HandleFunc("GET /{$}", ui.view(ui.overview))
	ui.mux.HandleFunc("GET /domain", ui.view(ui.domain))
	ui.mux.HandleFunc("GET /page", ui.view(ui.page))
	ui.mux.HandleFunc("GET /diff", ui.view(ui.diff))
	ui.mux.HandleFunc("GET /errors", ui.view(ui.failures))
	ui.mux.HandleFunc("GET /tablets", ui.view(ui.tablets))
	ui.mux.HandleFunc("GET /search", ui.view(ui.search))
	ui.mux.HandleFunc("GET /crawl", ui.view(ui.crawl)) // crawlview.go
	ui.mux.HandleFunc("GET /body", ui.body)
	ui.mux.HandleFunc("GET /screenshot", ui.screenshot) // screenshot.go
	ui.refresh()
	if ui.opts.QueueEvery > 0 {
		ui.wg.Add(1)
		go ui.sampleQueueEvery()
	}
	return ui, nil
}

// Close stops the background summary and waits for it.
func (ui *UI) Close() error {
	ui.cancel()
	ui.wg.Wait()
	return nil
}

// ServeHTTP answers one request. Every response carries a Content Security
// Policy that allows no script, no plugin and no request to another origin.
func (ui *UI) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	h := rw.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", uiPolicy)
	if ui.hosts != nil && !ui.hosts.allows(r.Host) {
		misdirected(rw, r.Host)
		return
	}
	ui.mux.ServeHTTP(rw, r)
}

// uiPolicy is the Content Security Policy of the interface's own pages: its
// style sheet and frames of stored bodies from itself, nothing else.
const uiPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// result is what a view returns: the template to render and the value to
// encode when JSON was asked for (data when json is nil).
type result struct {
	page  string
	title string
	data  any
	json  any
}

// httpError is an error with the status it answers.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// view adapts a view function to HTTP: HTML by default, JSON when the
// request's Accept header prefers application/json.
func (ui *UI) view(fn func(r *http.Request) (result, error)) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		res, err := fn(r)
		asJSON := wantsJSON(r)
		if err != nil {
			status := ui.errorStatus(r, err)
			if asJSON {
				writeJSON(rw, status, map[string]string{"error": err.Error()})
				return
			}
			ui.render(rw, status, result{page: "error", title: http.StatusText(status), data: err.Error()})
			return
		}
		if asJSON {
			v := res.json
			if v == nil {
				v = res.data
			}
			writeJSON(rw, http.StatusOK, v)
			return
		}
		ui.render(rw, http.StatusOK, res)
	}
}

// errorStatus is the HTTP status that answers err: an httpError's own,
// otherwise 500, with err logged (it is the store's or ours, not the
// request's).
func (ui *UI) errorStatus(r *http.Request, err error) int {
	var he *httpError
	if errors.As(err, &he) {
		return he.status
	}
	ui.opts.Logf("webui: %s: %v", r.URL, err)
	return http.StatusInternalServerError
}

// wantsJSON reports whether the Accept header names application/json before
// (or without) text/html.
func wantsJSON(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json":
			return true
		case "text/html", "application/xhtml+xml":
			return false
		}
	}
	return false
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	enc := json.NewEncoder(rw)
	enc.SetIndent("", "  ")
	enc.Encode(v) // a failed write means the client left
}

// layoutData is what every template gets: the view's title and data.
type layoutData struct {
	Title string
	Table string
	Data  any
}

func (ui *UI) render(rw http.ResponseWriter, status int, res result) {
	t := ui.pages[res.page]
	if t == nil {
		http.Error(rw, "webui: no template "+res.page, http.StatusInternalServerError)
		return
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", layoutData{Title: res.title, Table: ui.w.Table(), Data: res.data}); err != nil {
		ui.opts.Logf("webui: rendering %s: %v", res.page, err)
		http.Error(rw, "webui: rendering failed", http.StatusInternalServerError)
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(status)
	rw.Write([]byte(b.String()))
}
