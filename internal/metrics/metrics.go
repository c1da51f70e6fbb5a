package metrics

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/webtable/webtable/crawler"
)

// Source reads the figures of the crawl in progress (crawler.Crawler's
// Stats); ok false: none is.
type Source func() (s crawler.Stats, g crawler.Gauges, ok bool)

// Crawl is the metrics of one crawl program.
type Crawl struct {
	reg   *prometheus.Registry
	fetch *prometheus.HistogramVec
	store prometheus.Histogram

	mu     sync.Mutex
	source Source
	last   crawler.Stats // of the last run, kept after it ends
	lastG  crawler.Gauges

	stored storeCounter // store.go
}

// New returns the metrics of a crawl, with Go's and the process's own
// (memory, CPU, open files) beside them.
func New() *Crawl {
	c := &Crawl{reg: prometheus.NewRegistry()}
	c.stored.now = time.Now
	c.fetch = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "webtable_crawl_fetch_seconds",
		Help:    "How long each page request took, from sending it to its body read, by status class (2xx, ..., none).",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 9), // 1 ms .. 65 s
	}, []string{"class"})
	c.store = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "webtable_crawl_store_write_seconds",
		Help:    "How long storing each fetched page took (its row, anchors and links).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9), // 0.1 ms .. 6.5 s
	})
	c.reg.MustRegister(c.fetch, c.store, (*statsCollector)(c),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return c
}

// Hooks returns the crawler hooks that feed the histograms.
func (c *Crawl) Hooks() crawler.Hooks {
	return crawler.Hooks{
		Fetch: func(d time.Duration, status int) { c.fetch.WithLabelValues(class(status)).Observe(d.Seconds()) },
		Store: func(d time.Duration) { c.store.Observe(d.Seconds()) },
	}
}

// SetSource names the crawler whose figures the next scrapes read (nil:
// none; the last figures read stay).
func (c *Crawl) SetSource(s Source) {
	c.mu.Lock()
	c.source = s
	c.mu.Unlock()
}

// Handler serves the metrics in Prometheus's text format.
func (c *Crawl) Handler() http.Handler {
	return promhttp.HandlerFor(c.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// class names the class of an HTTP status: "2xx", or "none" for 0.
func class(status int) string {
	if c := status / 100; c >= 1 && c <= 5 {
		return strconv.Itoa(c) + "xx"
	}
	return "none"
}

// statsCollector turns the crawler's statistics into metrics at each
// scrape.
type statsCollector Crawl

var (
	descPages     = desc("pages_total", "Pages stored, by result: new_version, unchanged, error.", "result")
	descClass     = desc("fetches_total", "Pages stored, by the class of their HTTP status (none: no response).", "class")
	descErrors    = desc("errors_total", "Failed fetches by kind (robots, timeout, http, ...).", "kind")
	descBytes     = desc("bytes_total", "Body bytes received.")
	descRetries   = desc("retries_total", "Fetches tried again, by cause.", "cause")
	descRedirects = desc("redirects_total", "Fetches answered by a redirect to another row.")
	descTraps     = desc("traps_total", "Links refused as crawler traps.")
	descSitemaps  = desc("sitemap_files_total", "Sitemap files read, by result: read, bad, cut, unchanged (a 304 to a continuous crawl's conditional read).", "result")
	descListed    = desc("sitemap_urls_total", "URLs read from sitemaps, by result: queued (handed to the store), new, skipped (past 50,000), outside.", "result")
	descFrontier  = desc("frontier_entries", "Entries waiting in memory (a few per host; the store holds the rest).")
	descInFlight  = desc("in_flight", "Pages being fetched or stored.")
	descHosts     = desc("hosts_active", "Hosts with entries to fetch in this run.")
	descHeld      = desc("hosts_held_back", "Origins whose entries were set aside in this run, by reason.", "reason")
	descRobots    = desc("robots_cached", "robots.txt files in the cache.")
	descElapsed   = desc("run_seconds", "Time since the current run started.")
	descRunning   = desc("running", "1 while a run is in progress.")
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("webtable_crawl_"+name, help, labels, nil)
}

// Describe sends nothing: the collector is unchecked (the label values
// of its metrics vary).
func (sc *statsCollector) Describe(chan<- *prometheus.Desc) {}

// Collect reads the crawler's figures (or the last run's) and sends them.
func (sc *statsCollector) Collect(ch chan<- prometheus.Metric) {
	c := (*Crawl)(sc)
	c.mu.Lock()
	running := 0.0
	if c.source != nil {
		if s, g, ok := c.source(); ok {
			c.last, c.lastG = s, g
			if !s.Done {
				running = 1
			}
		}
	}
	s, g := c.last, c.lastG
	c.mu.Unlock()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(descPages, s.NewVersions, "new_version")
	counter(descPages, s.Unchanged, "unchanged")
	counter(descPages, s.Errors, "error")
	for i, n := range s.ByStatusClass {
		counter(descClass, n, class(i*100))
	}
	for k, n := range s.ErrorsByKind {
		counter(descErrors, n, fmt.Sprint(k))
	}
	for k, n := range s.RetriesBy {
		counter(descRetries, n, fmt.Sprint(k))
	}
	counter(descBytes, s.Bytes)
	counter(descRedirects, s.Redirects)
	counter(descTraps, s.Traps)
	sm := s.Sitemaps
	counter(descSitemaps, sm.Files, "read")
	counter(descSitemaps, sm.Bad, "bad")
	counter(descSitemaps, sm.Cut, "cut")
	counter(descSitemaps, sm.Unchanged, "unchanged")
	counter(descListed, sm.Listed, "queued")
	counter(descListed, sm.New, "new")
	counter(descListed, sm.Skipped, "skipped")
	counter(descListed, sm.Outside, "outside")
	gauge(descFrontier, float64(s.Queued))
	gauge(descInFlight, float64(s.InFlight))
	gauge(descHosts, float64(g.Hosts))
	for r, n := range g.HeldBack {
		gauge(descHeld, float64(n), string(r))
	}
	gauge(descRobots, float64(g.Robots))
	gauge(descElapsed, s.Elapsed.Seconds())
	gauge(descRunning, running)
	c.stored.collect(ch)
}
