package main

import (
	"fmt"
	"io"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/metrics"
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
