package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// maxHeaderBytes bounds the response headers of one request (net/http's
// default is 10 MiB).
const maxHeaderBytes = 1 << 20

// fetchIDHeader carries the id of a fetch from the worker, through colly,
// to the transport, which removes it before the request goes on the wire.
const fetchIDHeader = "X-Webtable-Fetch"

// transport is the http.RoundTripper colly uses. It sits below colly so that
// the crawler, not colly, sees every request on the wire:
//
//   - each request waits for the per-host scheduler (politeness) and holds
//     its slot until the response body has been read (the host's delay
//     counts from then); Config.Timeout bounds it from then on (the wait
//     does not count);
//   - the body is read here, at most MaxBody+1 bytes, so truncation is
//     detected and the bytes are kept exactly as received (colly would
//     convert them to UTF-8); gzip the server sends unasked is decoded
//     with the same bound (no gzip bombs);
//   - for a crawler fetch (fetchIDHeader set) the response is recorded in
//     its capture and colly gets the status and headers with an empty body,
//     so colly neither copies nor converts the body.
type transport struct {
	base    *http.Transport
	sched   *scheduler
	maxBody int64
	timeout time.Duration // per request on the wire, body included
	guard   *guard        // refuses private addresses (private.go)

	stop atomic.Pointer[chan struct{}] // closed when the current run stops
	// report is told of every request that got no response (the current
	// run's requestFailed): its origin, the kind of failure, and whether
	// that held the origin back.
	report atomic.Pointer[func(origin string, k FailureKind, reason crawlstore.HoldReason, fresh bool, err error)]

	nextID   atomic.Uint64
	captures sync.Map // id string -> *capture
}

// capture records what the transport saw for one crawler fetch. Only the
// goroutine running the fetch touches it (colly fetches synchronously on
// the caller's goroutine), before and after the fetch.
type capture struct {
	hops      int            // requests sent (1 + redirects followed)
	resp      *http.Response // last response: status, headers, Request.URL
	body      []byte         // last response body, at most maxBody bytes
	truncated bool
	encoding  string   // Content-Encoding as received ("" for none)
	claims    []string // row keys of redirect targets claimed (scheduler.claim)
}

func newTransport(cfg *Config, sched *scheduler) (*transport, error) {
	proxy := http.ProxyFromEnvironment
	if cfg.Proxy != "" {
		u, err := url.Parse(cfg.Proxy)
		if err != nil {
			return nil, fmt.Errorf("%w: proxy: %v", ErrConfig, err)
		}
		proxy = http.ProxyURL(u)
	}
	conns := max(cfg.Concurrency, cfg.PerHost) + 2
	g := newGuard(proxy)
	base := &http.Transport{
		Proxy: proxy,
		DialContext: g.dialContext(&net.Dialer{
			Timeout:   min(cfg.Timeout, 30*time.Second),
			KeepAlive: 30 * time.Second,
		}),
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           max(100, conns),
		MaxIdleConnsPerHost:    conns, // through a proxy every request shares one "host"
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    min(cfg.Timeout, 10*time.Second),
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		ExpectContinueTimeout:  time.Second,
		OnProxyConnectResponse: func(_ context.Context, _ *url.URL, req *http.Request, resp *http.Response) error {
			return responseFailure(req, resp)
		},
	}
	if cfg.RootCAs != nil {
		base.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs}
	}
	t := &transport{base: base, sched: sched, maxBody: cfg.MaxBody, timeout: cfg.Timeout, guard: g}
	never := make(chan struct{})
	t.stop.Store(&never)
	return t, nil
}

// register creates the capture of a new fetch and returns its id.
func (t *transport) register() (string, *capture) {
	id := strconv.FormatUint(t.nextID.Add(1), 36)
	c := &capture{}
	t.captures.Store(id, c)
	return id, c
}

func (t *transport) unregister(id string) { t.captures.Delete(id) }

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var capt *capture
	if id := req.Header.Get(fetchIDHeader); id != "" {
		if v, ok := t.captures.Load(id); ok {
			capt = v.(*capture)
		}
		req = req.Clone(req.Context())
		req.Header.Del(fetchIDHeader)
	}
	scheme, host := req.URL.Scheme, serverKey(req.URL.Scheme, req.URL.Host)
	release, err := t.sched.acquire(req.Context(), *t.stop.Load(), scheme, host)
	if err != nil {
		return nil, err
	}
	defer release()
	if capt != nil {
		capt.hops++
	}
	// NB: the timeout starts now, once the host's turn has come: waiting
	// for politeness (a Crawl-delay longer than the timeout) is not the
	// server being slow. The body is read under the same deadline.
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	defer cancel()
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		t.failed(req, scheme, host, err)
		return nil, err
	}
	t.sched.answered(scheme, host)
	body, truncated, err := readBody(resp, t.maxBody)
	resp.Body.Close()
	if err != nil {
		return nil, &bodyError{err}
	}
	// The encoding as received, for the archived headers (Page.Header):
	// net/http removes the header of a gzip it decoded itself.
	encoding := resp.Header.Get("Content-Encoding")
	if encoding == "" && resp.Uncompressed {
		encoding = "gzip"
	}
	resp.Header.Del("Content-Encoding")
	resp.Uncompressed = true
	if capt != nil {
		capt.resp, capt.body, capt.truncated = resp, body, truncated
		capt.encoding = encoding
		resp.Body = http.NoBody
		resp.ContentLength = 0
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// failed counts a request to the origin of scheme on host that got no
// response (a run stopping aside) against the origin, and reports it.
func (t *transport) failed(req *http.Request, scheme, host string, err error) {
	if req.Context().Err() != nil {
		return // stopped, not failed
	}
	k, ok := classify(err)
	if !ok {
		return
	}
	reason := crawlstore.HoldUnreachable
	if k == FailPrivate {
		reason = crawlstore.HoldPrivate
	}
	_, fresh := t.sched.failed(scheme, host, k, reason, errText(err))
	if report := t.report.Load(); report != nil {
		(*report)(scheme+"://"+host, k, reason, fresh, err)
	}
}

// setReport sets the function told of requests that got no response.
func (t *transport) setReport(f func(origin string, k FailureKind, reason crawlstore.HoldReason, fresh bool, err error)) {
	t.report.Store(&f)
}

// bodyError marks a failure while reading a response body.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "reading body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// readBody reads at most max bytes of resp's body, decoding a gzip
// Content-Encoding that net/http did not already remove, and reports
// whether there was more.
func readBody(resp *http.Response, max int64) (body []byte, truncated bool, err error) {
	var r io.Reader = resp.Body
	if !resp.Uncompressed {
		switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				if err == io.EOF { // empty body
					return nil, false, nil
				}
				return nil, false, err
			}
			defer zr.Close()
			r = zr
		}
	}
	size := 512
	if n := resp.ContentLength; n > 0 && !resp.Uncompressed && n <= max {
		size = int(n) + 1
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	n, err := buf.ReadFrom(io.LimitReader(r, max+1))
	if err != nil {
		return nil, false, err
	}
	body = buf.Bytes()
	if n > max {
		return body[:max], true, nil
	}
	return body, false, nil
}

// setStop sets the channel that aborts waits for the scheduler.
func (t *transport) setStop(ctx context.Context) {
	ch := make(chan struct{})
	t.stop.Store(&ch)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
}
