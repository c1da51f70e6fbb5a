package main

import (
	"context"
	"fmt"
	"io"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/warcimport"
)

// importWARCs builds the WebTable from WARC files instead of the network
// (warcimport.Files), and maps what stopped it to an exit status.
func importWARCs(ctx context.Context, o *options, stdout, stderr io.Writer) (err error) {
	w, err := openStore(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer func() { err = closeStore(w, o.db, err) }()
	opts := warcimport.Options{MaxBody: o.cfg.MaxBody, StoreAll: o.cfg.StoreAll}
	opts.OnSkip = func(e *archive.Error) { fmt.Fprintf(stderr, "crawl: skipping %v\n", e) }
	st, err := warcimport.Files(ctx, w, o.warcs, opts)
	fmt.Fprintln(stderr, &st)
	return runExit(err)
}
