package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/webtable/webtable/internal/metrics"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// startMetrics serves the crawl's metrics on o.metricsAddr (--metrics),
// at /metrics, and sets o.metrics; stop ends the server. Nothing to do
// without the flag.
func startMetrics(o *options, stderr io.Writer) (stop func(), err error) {
	if o.metricsAddr == "" {
		return func() {}, nil
	}
	srv, err := metrics.Serve(o.metricsAddr, func(err error) { fmt.Fprintf(stderr, "crawl: %v\n", err) })
	if err != nil {
		return nil, fail(exitUsage, "--metrics %s: %v", o.metricsAddr, err)
	}
	o.metrics = srv.Crawl
	fmt.Fprintf(stderr, "serving metrics on http://%s/metrics\n", srv.Addr)
	return srv.Close, nil
}

// watchStore makes the metrics, if served, count w's stored frontier and
// due pages (at most every 30 s: each count reads the keys).
func watchStore(o *options, w *webtable.WebTable) {
	if o.metrics == nil {
		return
	}
	o.metrics.SetStore(func(ctx context.Context, now time.Time) (metrics.StoreFigures, error) {
		n, err := w.FrontierSize(ctx, 0, urlkey.Buckets)
		if err != nil {
			return metrics.StoreFigures{}, err
		}
		d, err := w.DueCounts(ctx, now)
		if err != nil {
			return metrics.StoreFigures{}, err
		}
		return metrics.StoreFigures{Frontier: n, Due: d.Entries, DueNow: d.Now, DueDay: d.Day}, nil
	})
}
