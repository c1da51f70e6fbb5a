package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/webtable/webtable/crawler"
)

// Server serves the metrics of a crawl over HTTP at /metrics (crawl
// --metrics ADDR).
type Server struct {
	// Crawl is what the server serves: feed it from the crawler
	// (Crawl.Hooks, Crawl.SetSource).
	Crawl *Crawl
	// Addr is the address listened on (the port chosen, for port 0).
	Addr net.Addr
	srv  *http.Server
}

// Serve listens on addr (e.g. 127.0.0.1:9464; port 0 picks one) and
// serves the metrics of a new Crawl at /metrics until Close. fail is
// called, from the server's goroutine, with the error that ends the
// server before Close, if any. The error of a bad or busy addr is
// net.Listen's.
func Serve(addr string, fail func(error)) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err // net's error names the address: "listen tcp ADDR: ..."
	}
	s := &Server{Crawl: New(), Addr: ln.Addr()}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.Crawl.Handler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fail(fmt.Errorf("metrics server: %w", err))
		}
	}()
	return s, nil
}

// Close stops the server, waiting a second at most for the scrapes in
// flight.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
}

// Feed returns cfg with its hooks feeding c (Crawl.Hooks); a nil c, no
// metrics served, returns cfg as it is.
func (c *Crawl) Feed(cfg crawler.Config) crawler.Config {
	if c != nil {
		cfg.Hooks = c.Hooks()
	}
	return cfg
}

// Watch makes the next scrapes read cr's figures (Crawl.SetSource); it
// does nothing on a nil c.
func (c *Crawl) Watch(cr *crawler.Crawler) {
	if c != nil {
		c.SetSource(cr.Stats)
	}
}
