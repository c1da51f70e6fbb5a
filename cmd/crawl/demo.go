package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/webtable/webtable/internal/demoweb"
	"github.com/webtable/webtable/internal/stores"
)

// demoPasses is how many times the demo crawls its sample web.
const demoPasses = demoweb.Passes

// runDemo serves the built-in sample web on 127.0.0.1 and crawls it three
// times, through the crawler's own proxy setting so that the row keys are
// the real ones (com.cnn.www/), into a store that is recreated each time.
func runDemo(ctx context.Context, o *options, stdout, stderr io.Writer) (err error) {
	// Remove the demo store of an earlier run, and only that.
	if err := stores.ResetDemo(context.Background(), o.db, defaultDemoDB); err != nil {
		return fail(exitUsage, "%v", err)
	}
	srv, err := demoweb.Start()
	if err != nil {
		return fail(exitUsage, "starting the sample web: %v", err)
	}
	defer srv.Close()
	w, err := openStore(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer func() { err = closeStore(w, o.db, err) }()

	demo := *o
	cfg := &demo.cfg
	cfg.Proxy = srv.ProxyURL()
	if !o.delaySet {
		cfg.Delay = demoweb.Delay
	}
	fmt.Fprintf(stderr, "serving the sample web (%s) on %s; crawling it %d times into %s\n",
		strings.Join(demoweb.Hosts(), ", "), strings.TrimPrefix(srv.URL(), "http://"), demoPasses, o.db)
	for pass := 1; pass <= demoPasses; pass++ {
		srv.SetPass(pass)
		cfg.Recrawl = pass > 1 // later passes fetch every page again
		label := fmt.Sprintf("pass %d/%d: ", pass, demoPasses)
		if _, err := crawlOnce(ctx, &demo, w, srv.Seeds(), stderr, label); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, demoweb.Tour(o.db))
	return nil
}
