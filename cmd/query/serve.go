package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/internal/webui"
)

const serveHelp = `query serve [--addr 127.0.0.1:8080] [--allow-remote] [--db DIR]

Serves a read-only web interface over the store: the crawl's counts and a
chart of fetches, the domains as a tree, a site's pages, a page's versions
(each shown in a sandbox where its scripts do not run and it loads nothing),
the changes between two versions, the links to and from a page, failed
fetches and tablets, a search box over the pages' text (once "index
search" has built its index), and the crawl's queue (/crawl: pages queued
and due to be fetched again, counted every minute, with a chart of the
counts since query serve started). Every view also answers Accept:
application/json.
Stop it with Ctrl-C.

On a directory, query serve keeps the store open, and so locked, while it
runs: a crawl cannot start on that store meanwhile. To watch a crawl as it
runs, start it with crawl --serve and point query at it: query serve then
reads the store through the crawl's server.

Flags:
  --addr HOST:PORT  where to listen (default 127.0.0.1:8080; port 0 picks a
                    free one)
  --allow-remote    allow an address other than loopback (127.0.0.1, ::1,
                    localhost): anyone who can reach it reads the whole table

Only requests naming the address served, or a loopback name, with its port
(or any IP literal, listening on every interface) are answered; others get
421, so that no web page can read the table through a name of its own.
  --db DIR          the store (default ./webtable.db)
  --index DIR       the search index (default DB/search)

Example:
  query --db webtable-demo.db serve
`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db, addr string
	var allowRemote bool
	fs := newFlagSet("serve", &db)
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "")
	var index string
	fs.StringVar(&index, "index", "", "")
	fs.BoolVar(&allowRemote, "allow-remote", false, "")
	if err := parseNoArgs(fs, args, "serve", "--addr"); err != nil {
		return err
	}
	if err := checkLoopback(addr, allowRemote); err != nil {
		return err
	}
	w, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer w.Close()
	live := stores.Serving(db) // a crawl holds the store and serves it to us
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%w: listening on %s: %v", errSetup, addr, err)
	}
	ui, err := webui.New(w, webui.Options{ListenAddr: ln.Addr().String(), Logf: func(format string, args ...any) {
		fmt.Fprintf(stderr, "query serve: "+format+"\n", args...)
	}, Search: searcher(w, searchIndexDir(db, index))})
	if err != nil {
		ln.Close()
		return err
	}
	defer ui.Close()
	srv := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "query serve: reading %s at http://%s/ (Ctrl-C stops)\n", db, ln.Addr())
	switch {
	case live:
		fmt.Fprintf(stderr, "query serve: %s is being crawled: reading it through the crawl's server (crawl --serve); the counts follow the crawl\n", db)
	case !stores.IsCloud(db):
		fmt.Fprintf(stderr, "query serve: the store stays locked while this runs: a crawl cannot start on %s meanwhile (to watch a crawl, run crawl --serve and point query at it)\n", db)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stopping the server: %w", err)
	}
	<-done
	return nil
}

// checkLoopback refuses an address that other machines could reach unless
// allowRemote: a host that is not a loopback address or "localhost" (an
// empty host listens on every interface).
func checkLoopback(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usagef("--addr %q is not a loopback address: other machines could read the whole table; add --allow-remote if that is what you want", addr)
}
