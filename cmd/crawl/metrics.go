package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/webtable/webtable/crawler"
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
	ln, err := net.Listen("tcp", o.metricsAddr)
	if err != nil {
		return nil, fail(exitUsage, "--metrics %s: %v", o.metricsAddr, err)
	}
	o.metrics = metrics.New()
	mux := http.NewServeMux()
	mux.Handle("/metrics", o.metrics.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "crawl: metrics server: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "serving metrics on http://%s/metrics\n", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// withMetrics feeds the metrics, if served, from the hooks of cfg and
// returns the configuration to create the crawler with.
func withMetrics(o *options, cfg crawler.Config) crawler.Config {
	if o.metrics != nil {
		cfg.Hooks = o.metrics.Hooks()
	}
	return cfg
}

// watch makes the metrics, if served, read c's figures.
func watch(o *options, c *crawler.Crawler) {
	if o.metrics != nil {
		o.metrics.SetSource(c.Stats)
	}
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
