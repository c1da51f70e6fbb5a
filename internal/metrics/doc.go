// Package metrics serves a crawl's figures in Prometheus's text format
// (crawl --metrics ADDR), with Prometheus's own client library, so that
// the crawler itself links none of it.
//
// [New] returns a [Crawl]: its Hooks go into crawler.Config.Hooks (the
// latency histograms), its Source reads the running crawler's
// Stats and Gauges at each scrape (the counters and levels), and its
// Handler serves /metrics. Counters are read from the crawler's own
// statistics at scrape time, so they are the figures of the crawl's
// closing summary, never a second count of the same events.
//
// # Caveats
//
//   - Between runs (a crawl of several rounds, the demo's three) the
//     counters hold the last run's figures until the next run starts,
//     then start again from zero: Prometheus's rate() reads that as a
//     counter reset.
//   - webtable_crawl_frontier_entries is the part of the frontier in
//     memory (a few entries per host); the whole of it, and the due
//     pages, are counted in the store ([Crawl.SetStore]) at most every
//     30 s, so those lag by up to that much.
package metrics
