// Command index runs the indexing jobs over a WebTable: text (title,
// visible text, language), rank (PageRank over the anchors), dups (near
// and exact duplicates) and search (the full-text index that query search
// reads). Run "index --help" for the flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
