package realweb

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// serveProxy is the proxy: CONNECT opens a tunnel (or fails as the
// origin's behaviour says); an absolute-form request is answered for its
// http origin.
func (w *Web) serveProxy(rw http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		w.connect(rw, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(rw, "realweb: the proxy answers absolute-form http:// requests and CONNECT only", http.StatusBadRequest)
		return
	}
	arrived := time.Now()
	hp := hostPort("http", r.URL.Host)
	path := pathOf(r)
	b := w.behaviour("http", hp)
	if b != Serves && !(b == RobotsReset && path != "/robots.txt") {
		w.stats.request("http", hp, target(r))
	}
	switch b {
	case Serves:
		w.serveOrigin(rw, r, "http", hp, arrived)
	case RobotsReset:
		if path == "/robots.txt" {
			w.reset(rw)
			return
		}
		w.serveOrigin(rw, r, "http", hp, arrived)
	case Reset:
		w.reset(rw)
	default:
		w.badGateway(rw, hp)
	}
}

// connect answers CONNECT host:port.
func (w *Web) connect(rw http.ResponseWriter, r *http.Request) {
	hp := hostPort("https", r.Host)
	w.stats.connect("https://" + hp)
	switch w.behaviour("https", hp) {
	case Serves, RobotsReset:
		w.tunnel(rw, w.tlsAddr)
	case TLSUntrusted:
		w.tunnel(rw, w.untrAddr)
	case TLSAlert:
		w.tunnel(rw, w.alertLn.Addr().String())
	case Refused:
		http.Error(rw, fmt.Sprintf("realweb: CONNECT to %s refused by the proxy's policy", r.Host), http.StatusForbidden)
	case Reset:
		w.reset(rw)
	default:
		w.badGateway(rw, hp)
	}
}

// badGateway dials the closed port (as a proxy dials an origin nobody
// listens on) and answers 502 with the dial error.
func (w *Web) badGateway(rw http.ResponseWriter, hp string) {
	msg := "connection refused"
	if c, err := net.DialTimeout("tcp", w.closedAdr, time.Second); err != nil {
		msg = err.Error()
	} else {
		// NB: someone else took the port since start; the origin is still
		// closed as far as this web goes.
		c.Close()
	}
	http.Error(rw, fmt.Sprintf("realweb: cannot reach %s: %s", hp, msg), http.StatusBadGateway)
}

// reset closes the client's connection with an RST.
func (w *Web) reset(rw http.ResponseWriter) {
	conn, _, err := http.NewResponseController(rw).Hijack()
	if err != nil {
		// HTTP/2 (a request inside a tunnel): abort the stream.
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// tunnel answers 200 to a CONNECT and splices the client's connection to
// the server at addr.
func (w *Web) tunnel(rw http.ResponseWriter, addr string) {
	back, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		http.Error(rw, "realweb: "+err.Error(), http.StatusBadGateway)
		return
	}
	conn, buf, err := http.NewResponseController(rw).Hijack()
	if err != nil {
		back.Close()
		http.Error(rw, "realweb: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if !w.track(2, conn, back) {
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		w.untrack(conn, back)
		w.wg.Add(-2)
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		defer w.wg.Done()
		// buf.Reader holds what the client sent after the CONNECT
		// request (a ClientHello sent early), then reads conn.
		io.Copy(back, buf.Reader)
		closeWrite(back)
		done <- struct{}{}
	}()
	go func() {
		defer w.wg.Done()
		io.Copy(conn, back)
		closeWrite(conn)
		<-done
		w.untrack(conn, back)
	}()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
		return
	}
	c.Close()
}

// serveAlerts is the TLSAlert server: it reads each ClientHello record and
// answers with a fatal handshake_failure alert, then closes.
func (w *Web) serveAlerts(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !w.track(1, c) {
			return
		}
		go func() {
			defer w.wg.Done()
			defer w.untrack(c)
			c.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(c)
			hdr := make([]byte, 5)
			if _, err := io.ReadFull(br, hdr); err != nil {
				return
			}
			n := int(hdr[3])<<8 | int(hdr[4])
			io.CopyN(io.Discard, br, int64(n))
			// Alert record: type 21, TLS 1.2, length 2, fatal (2),
			// handshake_failure (40).
			c.Write([]byte{21, 3, 3, 0, 2, 2, 40})
		}()
	}
}

// serveTLS answers requests that came through a tunnel.
func (w *Web) serveTLS(rw http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	hp := hostPort("https", r.Host)
	path := pathOf(r)
	switch w.behaviour("https", hp) {
	case Serves:
	case RobotsReset:
		if path == "/robots.txt" {
			w.stats.request("https", hp, target(r))
			w.reset(rw)
			return
		}
	default:
		// A Host header naming another origin than the tunnel's, or
		// the untrusted server reached by a client that checks nothing.
		w.stats.request("https", hp, target(r))
		http.Error(rw, "realweb: misdirected request for "+hp, http.StatusMisdirectedRequest)
		return
	}
	w.serveOrigin(rw, r, "https", hp, arrived)
}

// pathOf returns the request's path, "/" when empty.
func pathOf(r *http.Request) string {
	if r.URL.Path == "" {
		return "/"
	}
	return r.URL.Path
}

// target returns the request's path and query, as the counters key it.
func target(r *http.Request) string {
	if r.URL.RawQuery != "" {
		return pathOf(r) + "?" + r.URL.RawQuery
	}
	return pathOf(r)
}

// serveOrigin answers r for an origin that serves, and counts it.
func (w *Web) serveOrigin(rw http.ResponseWriter, r *http.Request, scheme, hp string, arrived time.Time) {
	path, tgt := pathOf(r), target(r)
	if path == "/robots.txt" {
		rf := w.content.robots(scheme, hp)
		if !rf.found {
			w.stats.served(scheme, hp, tgt, http.StatusNotFound, arrived, false)
			http.NotFound(rw, r)
			return
		}
		w.stats.served(scheme, hp, tgt, http.StatusOK, arrived, false)
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(rw, rf.text)
		return
	}
	resp := w.content.lookup(scheme, hp, path)
	w.stats.served(scheme, hp, tgt, resp.status, arrived, true)
	switch {
	case resp.status == http.StatusMovedPermanently || resp.status == http.StatusFound:
		rw.Header().Set("Location", resp.location)
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.WriteHeader(resp.status)
		fmt.Fprintf(rw, "<!doctype html><title>Moved</title><a href=\"%s\">moved here</a>\n", html.EscapeString(resp.location))
	case resp.status != http.StatusOK:
		http.NotFound(rw, r)
	default:
		body := resp.body
		if body == nil && resp.file != "" {
			b, err := os.ReadFile(resp.file)
			if err != nil {
				http.Error(rw, "realweb: "+err.Error(), http.StatusInternalServerError)
				return
			}
			body = b
		} else if body == nil {
			body = render(resp)
		}
		rw.Header().Set("Content-Type", resp.ctype)
		rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
		rw.Write(body)
	}
}

// render writes a generated page.
func render(resp response) []byte {
	var b strings.Builder
	t := html.EscapeString(resp.title)
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body><h1>%s</h1>\n<ul>\n", t, t)
	for i, l := range resp.links {
		fmt.Fprintf(&b, "<li><a href=\"%s\">link %d</a></li>\n", html.EscapeString(l), i)
	}
	b.WriteString("</ul>\n")
	b.WriteString(resp.pad)
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}
