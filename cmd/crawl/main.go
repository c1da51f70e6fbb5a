// Command crawl fetches web pages from a seed list into a WebTable. Run
// "crawl --help" for the flags, or "crawl --demo" to crawl a built-in
// sample web.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// The first Ctrl-C stops the crawl gracefully (pages in flight are
	// stored); a second one, after stop() restores the default, kills it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		<-ctx.Done()
		select {
		case <-finished: // stop() below, not a signal
		default:
			fmt.Fprintln(os.Stderr, "crawl: interrupted: storing the pages in flight, then stopping (Ctrl-C again to quit at once)")
		}
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	close(finished)
	stop()
	os.Exit(code)
}
