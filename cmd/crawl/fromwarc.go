package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/warcimport"
)

// importWARCs builds the WebTable from WARC files instead of the network
// (warcimport.File), and maps what stopped it to an exit status.
func importWARCs(ctx context.Context, o *options, stdout, stderr io.Writer) (err error) {
	w, err := openStore(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer func() { err = closeStore(w, o.db, err) }()
	var st warcimport.Stats
	opts := warcimport.Options{MaxBody: o.cfg.MaxBody, StoreAll: o.cfg.StoreAll}
	opts.OnSkip = func(e *archive.Error) { fmt.Fprintf(stderr, "crawl: skipping %v\n", e) }
	for _, name := range o.warcs {
		err := warcimport.File(ctx, w, name, opts, &st)
		if err != nil {
			reportImport(stderr, &st)
			var ae *archive.Error
			switch {
			case errors.As(err, &ae), errors.Is(err, archive.ErrNotWARC):
				return fail(exitUsage, "%v (the captures before it are stored)", err)
			case ctx.Err() != nil:
				return fail(exitInterrupted, "stopped while reading %s; the captures read so far are stored", name)
			default:
				return fail(exitStoreFailed, "%v", err)
			}
		}
	}
	reportImport(stderr, &st)
	return nil
}

// reportImport writes the summary of an import.
func reportImport(stderr io.Writer, st *warcimport.Stats) { fmt.Fprintln(stderr, st) }
