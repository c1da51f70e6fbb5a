package demoweb

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

//go:embed sites
var sites embed.FS

// Hosts of the sample web.
var hosts = []string{"www.cnn.com", "cnnsi.com", "my.look.ca"}

// Hosts returns the host names the sample web serves.
func Hosts() []string { return append([]string(nil), hosts...) }

// Seeds returns the URLs a demo crawl starts from: each host's home page.
func Seeds() []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = "http://" + h + "/"
	}
	return out
}

// editions are the front pages of passes 1, 2, 3 (later passes cycle with
// a distinct edition number).
var editions = []struct{ headline, lede string }{
	{"World leaders meet at the summit", "Talks on trade and climate open on Monday."},
	{"Summit ends with a climate deal", "Twenty nations sign an agreement on emissions."},
	{"Markets rally after the summit deal", "Stocks rose on news of the agreement."},
}

// Server is a running sample web.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	pass atomic.Int64
	done chan struct{}
}

// Start serves the sample web on 127.0.0.1 at a random port, pass 1.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demoweb: listen: %w", err)
	}
	s := &Server{ln: ln, done: make(chan struct{})}
	s.pass.Store(1)
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL returns the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// ProxyURL returns the URL to use as the crawler's HTTP proxy (the same
// as URL).
func (s *Server) ProxyURL() string { return s.URL() }

// Seeds returns the demo seeds; see the package function Seeds.
func (s *Server) Seeds() []string { return Seeds() }

// SetPass selects the front page of www.cnn.com served from now on; n < 1
// counts as 1. Different passes serve different pages.
func (s *Server) SetPass(n int) { s.pass.Store(int64(max(n, 1))) }

// Pass returns the current pass.
func (s *Server) Pass() int { return int(s.pass.Load()) }

// Close stops the server and waits for it.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	if err != nil {
		return fmt.Errorf("demoweb: close: %w", err)
	}
	return nil
}

// ServeHTTP serves the sample web; it is exported through Server so tests
// can mount it in their own servers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "demoweb: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	host := strings.ToLower(r.Host)
	host = strings.TrimSuffix(host, ":80")
	if !known(host) {
		http.Error(w, "demoweb: unknown host "+host+" (the demo web is offline)", http.StatusBadGateway)
		return
	}
	body, ctype, err := s.file(host, r.URL.Path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(body)
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == w.Header().Get("ETag") {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

func known(host string) bool {
	for _, h := range hosts {
		if h == host {
			return true
		}
	}
	return false
}

// file returns the content of host's path.
func (s *Server) file(host, p string) ([]byte, string, error) {
	p = path.Clean("/" + p)
	if host == "www.cnn.com" && p == "/" {
		return s.home(), "text/html; charset=utf-8", nil
	}
	name := path.Join("sites", host, p)
	if st, err := fs.Stat(sites, name); err == nil && st.IsDir() {
		name = path.Join(name, "index.html")
	}
	if path.Base(name) == "home.html" {
		return nil, "", errors.New("demoweb: template")
	}
	b, err := sites.ReadFile(name)
	if err != nil {
		return nil, "", err
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	if strings.HasPrefix(ctype, "text/html") {
		ctype = "text/html; charset=utf-8"
	}
	return b, ctype, nil
}

// home renders the front page of www.cnn.com for the current pass.
func (s *Server) home() []byte {
	n := s.Pass()
	ed := editions[(n-1)%len(editions)]
	tpl, _ := sites.ReadFile("sites/www.cnn.com/home.html")
	return []byte(strings.NewReplacer(
		"{{EDITION}}", fmt.Sprintf("Edition %d", n),
		"{{HEADLINE}}", ed.headline,
		"{{LEDE}}", ed.lede,
	).Replace(string(tpl)))
}
