// Package crawler fetches web pages politely and hands each one, with its
// links, to a [crawlstore.Store] (it imports no storage package: the
// types it shares with the store are in crawlstore, which webtable
// implements).
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
// A worker takes an [crawlstore.Entry] from the scheduler, checks robots.txt (fetched
// through the same transport, so it waits for the host like any request),
// asks the colly collector to GET the URL, builds a [crawlstore.Page] from what the
// transport captured, extracts links with package extract (golang.org/x/net/html, decoding
// the page's charset with golang.org/x/net/html/charset), and calls
// [crawlstore.Store.SavePage]. The links the store had never seen are queued.
//
// # Politeness
//
// One scheduler owns both limits of every host: no more than PerHost
// requests in flight and no two request starts closer than
// max(Delay, Crawl-delay). Every request on the wire passes it: robots.txt,
// pages and each redirect hop. Concurrency bounds the workers overall.
//
// With a delay (Config.Delay, or a robots.txt Crawl-delay), a host is asked
// one request at a time, and the next starts no sooner than the delay after
// the previous response was read: the server stamps a request between the
// client writing it and the client reading its response, so this is what
// makes "never two requests closer than the delay" hold as the server sees
// it, on a loaded machine too. PerHost applies to hosts without a delay. A
// worker whose page must wait for its host's turn (the robots.txt fetched
// just before took it) puts the entry back and takes another host's, and
// Stats.Ready / Stats.IdleReady tell how long a host was ready and how much
// of it a worker idled nonetheless.
//
// # The frontier lives in the store
//
// Nothing that grows with the URLs of a crawl is kept in memory. The store
// holds every queued URL as a frontier entry ordered per host by discovery
// ([crawlstore.Store.Hosts], [crawlstore.Store.Next]); the scheduler keeps a window of
// [DefaultWindow] entries per host, refilled from a per-host cursor that only
// moves forward, and the hosts with work in a heap keyed by when each may
// next start a request (a pop is O(log hosts); a change wakes one waiting
// worker, and of the workers waiting for a host to come due one sleeps
// with a timer). Whether a URL was seen is the store's answer: SavePage and
// Enqueue queue only what it does not know (or what a [crawlstore.Requeue] names), and
// a worker asks the store ([crawlstore.Store.LastFetch]) before fetching an entry, so
// a URL queued twice by pages saved at the same moment is fetched once. An
// entry that cannot be read is skipped, counted in Stats.BadEntries and
// named through Config.Log; it never stops a run. A store that keeps a
// hint of where each host's live entries start ([crawlstore.FrontierHinter]) lets a
// resumed run start there, over the entries done before; the entries
// before the hint are read in the background, so a wrong hint loses
// nothing.
//
// # What colly does and does not do here
//
// colly v2 is the collector: it builds each request, sends it through its
// http.Client (our transport, our redirect policy via SetRedirectHandler,
// our timeout) and runs its callbacks. Everything below it is ours, because
// colly's own versions break this crawler:
//
//   - robots.txt: colly ignores it by default, never reads Crawl-delay and
//     fetches it outside any rate limit. We fetch and parse it with
//     temoto/robotstxt through the scheduler, honour Crawl-delay (capped at
//     [MaxCrawlDelay]) and check every redirect hop.
//   - depth: colly restarts at 1 on every Visit. Depth lives in the frontier
//     ([crawlstore.Entry.Depth]) and in the store, so a resumed crawl keeps it.
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
// # Origins
//
// Failures belong to an origin (scheme, host, port; origin.go), politeness
// to the server (the host and port the frontier groups URLs by: http://h/
// and https://h/ share one delay). A request that gets no response is
// classified (Stats.Failures: refused, proxy refused CONNECT, TLS, reset,
// timeout, private address...); one that will not change within the run
// holds its origin back at once, others after [MaxOriginFailures] in a
// row. A 429 or 5xx backoff pauses that origin only; a Retry-After beyond
// MaxCrawlDelay, or robots.txt unavailable after its retries, holds it
// back. The entries of an origin held back for being unreachable go
// through the host's other scheme when their URLs have no port (one row
// key for both), or are set aside: left queued in the store and counted,
// by origin and reason, in Stats.HeldBack, with hosts that have their
// MaxPagesPerHost or are outside the allowed domains, whose entries are
// still read to be counted. Each origin held back is named once through
// Config.Log. A [crawlstore.HoldRecorder] store keeps the list for readers and hands
// a server's pauses to the next run. Private addresses are refused by the
// dialer unless allowed (private.go).
//
// # Hostile servers
//
// Every failure is recorded in the page's fetch record (Page.Err and
// Page.ErrKind, state failed) and the crawl goes on; hostile_test.go has a
// test per fault:
//
//   - Config.Timeout bounds each request on the wire (headers and body),
//     from the moment the host's turn comes; a server that never answers or
//     trickles a body for ever fails with kind timeout. Waiting for
//     politeness does not count against it.
//   - A connection reset or closed before the response, a response that is
//     not HTTP, or response headers beyond 1 MiB fail with kind network; a
//     reset in the middle of the body with kind body. None is retried
//     within the run, but each request without a response counts against
//     its origin (see Origins below).
//   - 429 and 5xx are retried MaxRetries times after Retry-After or a
//     doubling backoff from 1s, both capped at [MaxCrawlDelay]. A
//     Retry-After beyond the cap is honoured without waiting: the page
//     fails and the host gets no more requests until then, in this run or
//     later ones: its entries stay queued, and a store that is a
//     [crawlstore.HoldRecorder] hands the pause to the next run, in a new process
//     too.
//   - Redirects: at most [MaxRedirects]; a hop back to a URL of the same
//     chain is a loop; http and https only (file:, ftp: and the rest are
//     refused before anything is sent); all fail with kind redirect.
//   - Bodies are cut at MaxBody (Page.Truncated; links of the part read are
//     followed); gzip is decoded under the same bound, so a bomb costs
//     MaxBody.
//   - Content-Type: a declared media type is trusted, even a wrong one (HTML
//     served as text/plain is not parsed; a binary served as text/html is
//     stored and tokenised, and yields whatever links the tokenizer finds).
//     A missing type, or unknown/unknown, application/unknown or */*, is
//     replaced by the one sniffed from the body (http.DetectContentType,
//     the WHATWG MIME Sniffing rules), and Page.MediaType says so.
//   - Charsets: the body is stored as received; anchor text is decoded with
//     the Content-Type charset, else a byte order mark, else <meta charset>
//     or <meta http-equiv>, else windows-1252 (golang.org/x/net/html/charset).
//   - Malformed HTML is what the x/net/html tokenizer recovers; NUL
//     characters are dropped from anchor text (U+FFFD in URLs).
//   - A page of any number of links costs one tokenisation: at most
//     extract.MaxLinks (4 x DefaultMaxLinks) raw links are collected and
//     Config.MaxLinks kept; how many there were is recorded.
//   - Credentials never leave: user info is dropped from every URL (seeds,
//     links, redirect Locations), no Authorization header is sent, and
//     cookies are disabled.
//
// # Crawler traps
//
// Config.Depth bounds every crawl. Within it, three defences:
//
//   - A URL longer than [MaxURLLength] or with a path segment repeated more
//     than [MaxSegmentRepeats] times is not followed.
//   - Session ids: URLs that differ only in session-id parameters are one
//     frontier entry, queued and fetched without the session ids:
//     query parameters phpsessid, jsessionid, sessionid, session_id, sessid,
//     aspsessionid*, cfid, cftoken, oscsid, zenid (any case, any value),
//     sid when its value is at least 16 letters and digits (a short or
//     slashed sid is a story id on some sites), and ";jsessionid=" path
//     parameters. Anchors keep the spelling met (urlkey decides row keys);
//     a link to the page itself with a fresh session id is a link to
//     itself and is not recorded. The pattern chain travels with the entry
//     (Entry.Chain), so a resumed run goes on counting.
//   - Pattern chains: a link whose URL has the same pattern as the page it
//     is on (host, path with digit runs blanked, query parameter names)
//     continues that page's chain; a chain longer than [MaxPatternChain]
//     hops is not followed (counted in Stats.Traps, the anchor kept). An
//     endless calendar (/cal?month=N+1, /cal/2026/12 -> /cal/2027/01) so
//     ends after MaxPatternChain pages whatever the depth, while a
//     catalogue page linking to thousands of /p/N is not limited.
//
// # Shards
//
// Config.Shard and Config.Shards split one crawl between crawlers that
// share one store (one process each, or several in one process). A shard
// fetches only URLs whose host falls in its shard by [crawlstore.ShardOf] (a
// contiguous range of host buckets, see urlkey.BucketRange). Everything else
// works as without shards, with these differences:
//
//   - Seeds and links of other shards' hosts are handed to the store
//     (Enqueue, Page.Discovered) and so queued for their shard, never
//     fetched here, nor their robots.txt. Another shard's seed that was
//     fetched before is not queued again here: its own shard, given the
//     same seeds, does that.
//   - Queued entries of other shards are skipped at the start of a run and
//     left queued.
//   - A redirect to another shard's host is not followed: the 3xx is
//     recorded with its Location (Page.Location), which is queued for that
//     shard at the page's depth.
//
// A shard's Run looks at the store while it goes on for hosts of its shard
// that other shards queued entries for (a [crawlstore.HostFeed] store's notes, or
// Store.Hosts again; see resume.go) and takes them up, and ends when its
// own frontier has stayed empty for half a second of such looks (or
// MaxPages, or ctx). Other shards may queue work for it after that:
// running it again picks that work up from the store. Deciding when the whole crawl is finished
// needs the shards to agree, which is the store's business, not the
// crawler's: package shardrun runs a shard's Run again whenever the store holds
// work for it, and stops all shards once shard records in the table say
// that every shard is idle with nothing queued (see webtable.ShardWatch).
// [Crawler.RunLimited] lets it run each round with the part of a shared
// --max-pages it reserved. Only a successful fetch queues new work, and
// nothing is left queued except on purpose: entries outside the allowed
// domains, and those of a host that asked (Retry-After) for a pause beyond
// MaxCrawlDelay. TestShards runs 3 shards of one process in turns until
// none fetches a page, and checks the union of their rows against one
// unsharded crawl.
//
// # Sitemaps
//
// When robots.txt first allows a page of an origin in a run, the sitemaps
// its Sitemap lines name are read in the background (sitemaps.go), and
// Config.Sitemaps at the start of the run; the run is not over before
// they are read. A sitemap is fetched through the transport, so through
// the per-host scheduler and robots.txt, parsed by package sitemap within
// the protocol's limits, and an index's sitemaps are read in turn (each
// file once a run: a loop is counted and named). The URLs listed on the
// sitemap's own host are queued as a seed's links (depth 1, admit), each
// entry carrying its SitemapHint to the fetch record. [SitemapStats]
// counts what was read and refused.
//
// # Recrawl by change rate
//
// [ChangeEstimate] (Cho and Garcia-Molina's estimators: from changes seen
// in visits, and from Last-Modified dates, [FirstModified] and
// [ChangeEstimate.ObserveModified]), [Policy] and [SolveMu] are the pure
// policy of a recrawl by estimated change rate, measured in
// internal/freshsim. A crawl builds each page's estimate from its fetches
// ([EstimateOf], a [Visit] each with its Last-Modified), solves Mu once in
// a while for the rates [Policy.RateOf] gives, and schedules each page
// [Policy.Next] after its latest fetch (Probe 0.1 probes pages without
// Last-Modified that changed at every visit).
//
// [Crawler.RunContinuous] runs a policy (Config.Continuous, crawl
// --continuous): each fetch sets when its page is due again
// (crawlstore.Change, the estimate dated by Last-Modified where the
// response has one), which a [crawlstore.DueKeeper] store keeps; between
// rounds the due pages go back into the frontier, and the crawler waits on
// one timer (Config.Clock) for the next, or until the store (a
// [crawlstore.QueueWatcher]) queues a link, or, sharded, a look finds
// another shard's, or until a sitemap is due: a [crawlstore.SitemapKeeper]
// store keeps each sitemap's schedule, read with conditional GETs (see
// continuous_sitemap_due.go). Config.Budget caps fetches, sitemap files
// included, with a token bucket on the same clock. See continuous.go.
//
// # Rendering
//
// With Config.Render (crawl --render), a fetched HTML page that the mode
// picks (always, or [extract.LooksLikeShell] for auto) is handed to
// Config.Renderer (package render: headless Chromium) after its fetch,
// with the served bytes. Every request the page makes comes back through
// [RenderJob.Fetch]: admit's scope, robots.txt and the transport, so it
// waits for its host's turn like any request; what the crawl refuses
// wraps [ErrBlocked]. The page's links are those of the served HTML and
// of the rendered document together; a failed render records the page
// failed, kind [crawlstore.KindRender]. A render cut by Ctrl-C leaves its page
// queued. The crawler imports no browser: it defines [Renderer].
//
// # Stopping
//
// Cancelling Run's context stops handing out entries and aborts requests
// still waiting for their host; pages already on the wire finish and are
// stored (store calls use a context that Ctrl-C does not cancel, ended
// Config.StoreGrace after it, so that a hung store cannot hold the program
// for ever), then Run returns an error wrapping the context's error.
// Entries not fetched stay queued in the store for the next run.
//
// # Caveats
//
//   - Memory grows with hosts, not URLs: a few hundred bytes per host being
//     crawled (its politeness state, its window of entries; an idle host
//     whose delay and pauses are over is forgotten, sched_prune.go), and
//     the robots.txt cache (at most [MaxRobots] files and [MaxRobotsBytes]).
//     On top of that, bodies in flight: a body is buffered whole (up to MaxBody, the buffer growing
//     by doubling), so they may take about 2 x MaxBody x Concurrency (160
//     MiB with the defaults). Tokenising a page adds little beyond it:
//     TestHostileManyLinks holds a 4 MiB page of 100,000 links under 96
//     MiB allocated in all.
//   - The entries set aside (a host at its MaxPagesPerHost, outside the
//     allowed domains, an origin held back) are still read from the store,
//     to be counted: a run reads every entry of its shard's frontier once.
//   - Every entry costs one store read before its fetch (the store decides
//     what was fetched) and SavePage one batched read of its links' states.
//   - Links are queued without their session-id parameters (see above), so
//     the URL fetched is the one without them.
//   - MaxPatternChain also cuts long legitimate chains within one pattern
//     (pagination beyond 100 pages deep, a chain site /1 -> /2 -> ...).
//   - Trust in Content-Type: HTML served as text/plain or
//     application/octet-stream is not parsed for links.
//   - A redirect target done by an earlier run is not fetched through the
//     redirect (unless Recrawl); that costs one LastFetch per new target.
//   - Shards: a host moves to another shard when Shards changes; ShardOf's
//     bucket ranges spread hosts evenly but are no consistent hash. Fetch records
//     do not say which shard made them. A robots.txt that redirects to
//     another host is followed there (RFC 9309), whatever its shard.
//   - A fetch with redirects may take up to (1 + MaxRedirects) x Timeout
//     on the wire, plus the politeness waits between hops.
//   - A redirect loop is recognised by a URL repeated byte for byte; a loop
//     through different spellings of one URL ends at MaxRedirects.
//   - A redirect that only adds a session id (/p -> /p?PHPSESSID=1) is
//     followed, and the content stored in the row of the URL with the id;
//     one that sends the id back to /p again is a loop (fails).
//   - A session-id variant of a URL left queued in the store (by an earlier
//     run or another shard) stays queued while another spelling of it is
//     met first in a run.
//   - Queued entries outside the allowed domains of the current run are left
//     queued and skipped, not dropped.
//   - A URL done by an earlier run at a greater depth is not fetched again to
//     follow its links further, unless Recrawl.
//   - Links to the page itself are not recorded as anchors.
//   - Only gzip is decoded when a server sends a Content-Encoding it was not
//     asked for; other encodings are stored as received.
//   - http.ProxyFromEnvironment reads the environment once per process.
//   - A 429 or 5xx that stays one after [MaxRetries] tries (see Hostile
//     servers) is recorded as failed and retried by the next run that
//     meets it.
//   - A sitemap's hints ride with the entry in memory: an entry read back
//     from the store (a resume, a host whose window was full) has none, and
//     its fetch record none either.
//   - Sitemaps are read once per origin and run, whatever their size: a
//     50,000 URL sitemap queues 50,000 entries in the store at once.
//   - A robots.txt answering 5xx or unreachable leaves its origin's pages
//     queued (RFC 9309: not failed); it is asked again after a doubling
//     backoff, and after [MaxRetries] the origin is held back for the run
//     (its pages go to the host's other scheme, or wait for a later run). A
//     redirect into such a host fails with kind redirect. robots.txt is
//     kept for at most [RobotsTTL] per scheme, host and port.
package crawler
