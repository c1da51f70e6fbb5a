// Package crawler fetches web pages politely and hands each one, with its
// links, to a [Store] it defines itself (it imports no storage package).
//
// # How it fits together
//
//	Run ──> scheduler (frontier per host) ──> workers (Concurrency)
//	          │                                 │ robots.txt check (robots)
//	          │                                 │ colly.Collector.Request (sync)
//	          │                                 ▼
//	          └── acquire/release <── transport (http.RoundTripper under colly)
//	                                            │ per-host delay + concurrency
//	                                            │ body read: MaxBody+1, raw bytes kept
//	                                            ▼
//	                                      http.Transport (Proxy / ProxyFromEnvironment)
//
// A worker takes an [Entry] from the scheduler, checks robots.txt (fetched
// through the same transport, so it waits for the host like any request),
// asks the colly collector to GET the URL, builds a [Page] from what the
// transport captured, extracts links with golang.org/x/net/html (decoding
// the page's charset with golang.org/x/net/html/charset), and calls
// [Store.SavePage]. The links the store had never seen are queued.
//
// # What colly does and does not do here
//
// colly v2 is the collector: it builds each request, sends it through its
// http.Client (our transport, our redirect policy via SetRedirectHandler,
// our timeout) and runs its callbacks. Everything below it is ours, because
// colly's own versions break this crawler (see STYLE.md habit 11):
//
//   - robots.txt: colly ignores it by default, never reads Crawl-delay and
//     fetches it outside any rate limit. We fetch and parse it with
//     temoto/robotstxt through the scheduler, honour Crawl-delay (capped at
//     [MaxCrawlDelay]) and check every redirect hop.
//   - depth: colly restarts at 1 on every Visit. Depth lives in the frontier
//     ([Entry.Depth]) and in the store, so a resumed crawl keeps it.
//   - bodies: colly rewrites bodies to UTF-8 when Content-Type names a
//     charset, cuts at MaxBodySize silently and gunzips without a bound. The
//     transport reads at most MaxBody+1 bytes itself (truncation is seen),
//     decodes unasked gzip under the same bound, keeps the raw bytes and
//     hands colly an empty body.
//   - 304 and error statuses: ParseHTTPErrorResponse is on, so colly reports
//     no error for them; the crawler classifies statuses itself.
//   - connections: our own http.Transport with Proxy set (colly's SetProxy
//     would turn keep-alives off).
//   - cookies: disabled (colly's jar has no public-suffix list).
//   - COLLY_* environment variables: read inside colly.NewCollector, so
//     every field is set again after it returns.
//   - page counting: MaxRequests can overshoot under async; the scheduler
//     hands out at most MaxPages - fetched entries at a time.
//   - revisits: colly's visited set is off (AllowURLRevisit); the frontier
//     fetches a URL at most once per run (failures of earlier runs are
//     retried, done pages only with Recrawl).
//
// # Politeness
//
// One scheduler owns both limits of every host: no more than PerHost
// requests in flight and no two request starts closer than
// max(Delay, Crawl-delay). Every request on the wire passes it: robots.txt,
// pages and each redirect hop. Concurrency bounds the workers overall.
//
// # Stopping
//
// Cancelling Run's context stops handing out entries and aborts requests
// still waiting for their host; pages already on the wire finish and are
// stored (store calls use a context that Ctrl-C does not cancel), then Run
// returns an error wrapping the context's error. Entries not fetched stay
// queued in the store for the next run.
//
// # Caveats
//
//   - The per-run "seen" set and the per-host queues are in memory: a crawl
//     of tens of millions of URLs needs a frontier in the store instead.
//   - Choosing a host scans the hosts with queued entries (O(hosts) per page).
//   - Queued entries outside the allowed domains of the current run are left
//     queued and skipped, not dropped.
//   - A URL done by an earlier run at a greater depth is not fetched again to
//     follow its links further, unless Recrawl.
//   - Links to the page itself are not recorded as anchors.
//   - Only gzip is decoded when a server sends a Content-Encoding it was not
//     asked for; other encodings are stored as received.
//   - http.ProxyFromEnvironment reads the environment once per process.
//   - A 429 or 5xx is fetched again up to [MaxRetries] times in the run,
//     after Retry-After (capped at [MaxCrawlDelay]) or a doubling backoff
//     from 1s during which the host gets no request; then it is recorded
//     as failed and retried by the next run. Network errors and timeouts
//     are not retried within the run.
//   - A robots.txt answering 5xx or unreachable disallows its host for the
//     rest of the run (RFC 9309); the pages fail with kind robots.
package crawler
