package main

import (
	"fmt"
	"io"

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
