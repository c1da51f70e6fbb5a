// Package crawler fetches web pages politely and hands each one, with its
// links, to a [crawlstore.Store]. It imports no storage package: the types
// it shares with the store are crawlstore's, which webtable implements.
//
// # Main types
//
//   - [Crawler], made by [New] from a [Config] (one struct, mapped one to
//     one from crawl's flags; [DefaultConfig]) and a Store. [Crawler.Run]
//     crawls until the frontier is spent or Config.MaxPages reached;
//     [Crawler.RunLimited] does so with its own limit of pages; [Crawler.RunContinuous] fetches
//     pages again as they come due, until its context ends. One run at a
//     time; runs share the robots.txt cache, the politeness state and the
//     connections.
//   - [Stats]: the figures of a run ([Crawler.Stats] while it goes on,
//     [Stats.Add] for rounds in turn), with [Gauges], [SitemapStats] and
//     the causes of failures and retries ([FailureKind], [RetryCause]).
//     [Hooks] and Config.Progress report as it goes; Config.Log names
//     what the crawl skipped and the user should know of.
//   - [Renderer], [RenderJob], [RenderResult], [RenderMode]: pages loaded
//     in a browser (package render implements Renderer).
//   - [ChangeEstimate], [Visit], [Policy], [SolveMu]: the recrawl policy
//     of a continuous crawl. [Budget]: fetches per period. [Clock]: the
//     time a crawler reads (tests move it on).
//   - [CutOff]: the bound of store calls after an interrupt.
//
// # How a page is fetched
//
// A worker takes a [crawlstore.Entry] from the scheduler, asks the store
// whether it is still to be fetched ([crawlstore.Store.LastFetch]), checks
// robots.txt, and asks the colly collector to GET the URL. The request
// goes through the crawler's own transport, which waits for the host's
// turn and keeps the raw body. The crawler builds a [crawlstore.Page] from
// the response, extracts its links with package extract ([PageLinks]) and
// calls [crawlstore.Store.SavePage], which queues the links the store did
// not know. Concurrency bounds the fetches in flight; storing a page does
// not hold a fetch slot.
//
// # The frontier lives in the store
//
// Nothing that grows with the URLs of a crawl is kept in memory. The store
// holds every queued URL as a frontier entry, per host in order of
// discovery ([crawlstore.Store.Hosts], [crawlstore.Store.Next]); the
// scheduler keeps a window of [DefaultWindow] entries per host, read
// forward only, and the hosts with work in order of when each may next be
// asked. Whether a URL was seen is the store's answer: SavePage and
// Enqueue queue only what it does not know (or what a [crawlstore.Requeue]
// names), and a URL queued twice by pages saved at the same moment is
// fetched once. Depth travels with the entry ([crawlstore.Entry.Depth]),
// so a resumed crawl keeps it. An entry that cannot be read is skipped,
// counted in Stats.BadEntries and named through Config.Log; it never stops
// a run. A [crawlstore.FrontierHinter] store lets a resumed run start each
// host where its live entries begin; the entries before the hint are read
// in the background, so a wrong hint costs reads, never an entry.
//
// A run fetches a URL at most once. Pages failed in an earlier run are
// fetched again; pages done only with Config.Recrawl or when due in a
// continuous crawl (a conditional request: a 304 keeps the stored
// content).
//
// # Politeness
//
// One scheduler owns both limits of every server (the host and port the
// frontier groups URLs by: http://h/ and https://h/ share them), and every
// request on the wire passes it: robots.txt, pages, sitemaps, each redirect
// hop and each request of a rendered page.
//
//   - With a delay (Config.Delay, or a longer robots.txt Crawl-delay capped
//     at [MaxCrawlDelay]), a host is asked one request at a time, and the
//     next starts no sooner than the delay after the previous response was
//     read, so that the server never sees two requests closer than the
//     delay. Without one, at most Config.PerHost requests are in flight to
//     it.
//   - robots.txt is read (temoto/robotstxt) before the first page of each
//     scheme, host and port, kept for at most [RobotsTTL], and obeyed for
//     every page and redirect hop, unless Config.IgnoreRobots. A page it
//     disallows is recorded failed, kind robots.
//   - A 429 or 5xx pauses its origin (see Failures).
//   - Config.Budget caps the pages and sitemap files a crawler fetches
//     per period, with a token bucket on Config.Clock.
//
// A worker whose page must wait for its host's turn puts the entry back
// and takes another host's; Stats.Idle and Stats.IdleReady tell how long
// workers waited and how much of it a host was ready nonetheless.
//
// # Scope
//
// A run fetches the URLs of its allowed domains (Config.AllowDomains, else
// the [RegistrableDomain] of each seed and, unless Config.NoSitemaps, of
// each Config.Sitemaps URL; a run with neither seeds nor allowed domains
// resumes every queued host and allows their domains) within Config.Depth links of a seed, at most
// Config.MaxPages successful fetches and Config.MaxPagesPerHost pages of a
// host, counting earlier runs. Queued entries outside the allowed domains
// are left queued for a run that allows them.
//
// Only http and https are fetched, and credentials never leave: user info
// is dropped from every URL, no Authorization header is sent, and cookies
// are disabled. The dialer refuses loopback, private-network, link-local
// and unspecified addresses, checked after DNS resolution on every
// request, unless Config.AllowPrivate, or the address is one a seed names
// itself (http://10.0.0.5/, http://localhost:8080/), which a
// [crawlstore.PrivateSeeder] store remembers for resumed runs. A request
// through a proxy dials the proxy, the user's choice.
//
// Three defences bound a crawl within its depth against traps:
//
//   - A URL longer than [MaxURLLength], or with a path segment repeated
//     more than [MaxSegmentRepeats] times, is not followed.
//   - URLs that differ only in session-id parameters are one entry, queued
//     and fetched without them: query parameters phpsessid, jsessionid,
//     sessionid, session_id, sessid, aspsessionid*, cfid, cftoken, oscsid,
//     zenid (any case, any value), sid when its value is at least 16
//     letters and digits, and ";jsessionid=" path parameters. Anchors keep
//     the spelling met.
//   - A link whose URL has the pattern of the page it is on (host, path
//     with digit runs blanked, query parameter names) continues that
//     page's chain (crawlstore.Entry.Chain, kept across runs); a chain
//     longer than [MaxPatternChain] is not followed (Stats.Traps). An
//     endless calendar so ends whatever the depth, while a catalogue page
//     linking to thousands of /p/N is not limited.
//
// # Failures
//
// Every failure is recorded in the page's fetch record (Page.Err and
// Page.ErrKind, state failed) and the crawl goes on; only a store failure
// stops a run. Failures belong to an origin (scheme, host and port).
//
//   - A request without a response is classified (Stats.Failures: refused,
//     TLS, reset, timeout, private address...) and not retried within the
//     run: its page fails (kind timeout or network) unless its origin is
//     now held back. A failure that cannot change within the run holds
//     the origin back at once, others after [MaxOriginFailures] in a row.
//     A body cut off midway fails with kind body. Config.Timeout bounds
//     each request on the wire, headers and body, from the moment its
//     host's turn comes.
//   - 429 and 5xx are retried [MaxRetries] times, after Retry-After or a
//     doubling backoff from 1s, both capped at MaxCrawlDelay. A Retry-After
//     beyond the cap fails the page and holds its origin back until then,
//     in later runs too where the store is a [crawlstore.HoldRecorder].
//   - A robots.txt answering 5xx, or unreachable, leaves its origin's pages
//     queued (RFC 9309) and is asked again after a doubling backoff; after
//     MaxRetries the origin is held back for the run.
//   - The entries of an origin held back go to the host's other scheme
//     when their URLs have no port (one row key for both), or are set
//     aside: left queued and counted, by origin and reason, in
//     Stats.HeldBack, with those of hosts at their MaxPagesPerHost or
//     outside the allowed domains. Each origin held back is named once
//     through Config.Log.
//   - Redirects: at most [MaxRedirects]; a hop back to a URL of the same
//     chain is a loop; a scheme other than http and https is refused
//     before anything is sent; all fail with kind redirect.
//   - Bodies are cut at Config.MaxBody (Page.Truncated; the links of the
//     part read are followed); gzip a server sends unasked is decoded
//     under the same bound, other encodings are stored as received.
//   - A declared media type is trusted; a missing one, or unknown/unknown,
//     application/unknown or */*, is replaced by the one sniffed from the
//     body (http.DetectContentType), and Page.MediaType says so. Anchor
//     text is decoded with the Content-Type charset, else a byte order
//     mark, else <meta>, else windows-1252; the body is stored as received.
//   - A page of any number of links costs one tokenisation: at most
//     extract.MaxLinks raw links are collected and Config.MaxLinks kept;
//     how many there were is recorded.
//
// # What colly does and does not do here
//
// colly v2 is the collector: it builds each request, sends it through its
// http.Client (the crawler's transport, redirect policy and timeout) and
// runs its callbacks. The crawler sets every field that matters after
// colly.NewCollector returns (it reads COLLY_* environment variables) and
// owns what colly's own versions would get wrong: robots.txt (colly's
// ignores Crawl-delay and every rate limit), depth (colly's restarts at 1
// on every Visit), bodies (colly's rewrites charsets, cuts silently and
// gunzips without a bound), 304 and error statuses (classified by the
// crawler), connections (colly's SetProxy turns keep-alives off), cookies
// (colly's jar has no public-suffix list), the page count (MaxRequests
// overshoots under async) and revisits (the frontier decides).
//
// # Shards
//
// Config.Shard and Config.Shards split one crawl between crawlers that
// share one store. A shard fetches only the URLs whose host is in its
// shard by [crawlstore.ShardOf]; seeds, links and redirect targets of
// other shards' hosts are handed to the store, queued for their shard and
// never fetched here, nor their robots.txt (a redirect to another shard's
// host is recorded with its Location, which is queued at the page's
// depth). While a run goes on it takes up the hosts of its shard that
// other shards queued entries for (a [crawlstore.HostFeed] store's notes,
// or Store.Hosts again), and it ends once its own frontier has stayed
// empty for half a second of such looks. Deciding when the whole crawl is
// finished is the store's business: package shardrun runs a shard's rounds
// ([Crawler.RunLimited], with its part of a shared page budget) until the
// shard records say that every shard is idle with nothing queued.
//
// # Sitemaps
//
// When robots.txt first allows a page of an origin in a run, the sitemaps
// its Sitemap lines name are read in the background, and Config.Sitemaps
// at the start of the run, unless Config.NoSitemaps; the run is not over
// before they are read. A sitemap is fetched like a page (politeness,
// robots.txt), parsed by package sitemap within the protocol's limits, and
// an index's sitemaps are read in turn, each file once a run. The URLs
// listed on the sitemap's own host are queued at depth 1, each entry
// carrying its [crawlstore.SitemapHint] to the fetch record. SitemapStats
// counts what was read and refused.
//
// # Continuous crawls
//
// [Crawler.RunContinuous] (Config.Continuous) sets, at each fetch, when
// the page is due again ([crawlstore.Change]): after an interval between
// Config.MinInterval and Config.MaxInterval from its estimated change rate
// ([EstimateOf] over its fetches, dated by Last-Modified where the
// response has one; [Policy.Next]). A [crawlstore.DueKeeper] store keeps
// the due times, and the due pages go back into the frontier between
// rounds. Between rounds the crawler waits on Config.Clock for the next
// page due, a link queued ([crawlstore.QueueWatcher]), another shard's
// work or a sitemap due (a [crawlstore.SitemapKeeper] store keeps each
// sitemap's schedule, read again with conditional GETs). With
// Config.Budget, [SolveMu] spreads it where it buys the most freshness.
//
// # Rendering
//
// With Config.Render, a fetched HTML page that the mode picks (always, or
// [extract.LooksLikeShell] for auto) is handed to Config.Renderer with the
// served bytes. Every request the page makes comes back through
// [RenderJob.Fetch], under the crawl's scope, robots.txt and politeness;
// what the crawl refuses wraps [ErrBlocked]. The page's links are those of
// the served HTML and of the rendered document together; a failed render
// records the page failed, kind [crawlstore.KindRender].
//
// # Stopping
//
// Cancelling a run's context stops handing out entries and aborts
// requests still waiting for their host; pages on the wire finish and are
// stored (store calls use a context that the interrupt does not cancel,
// ended Config.StoreGrace after it), then the run returns an error
// wrapping the context's error. Entries not fetched, and a page whose
// render the interrupt cut, stay queued in the store for the next run.
// Errors: [ErrConfig], [ErrSeed], [ErrStore], [ErrRunning],
// [ErrNotDueKeeper].
//
// # Caveats
//
//   - Memory grows with hosts, not URLs: a few hundred bytes per host being
//     crawled (an idle host whose delay and pauses are over is forgotten),
//     and the robots.txt cache (at most [MaxRobots] files and
//     [MaxRobotsBytes]). Bodies in flight are buffered whole, the buffer
//     growing by doubling: about 2 x MaxBody x Concurrency at the most.
//   - Every entry costs one store read before its fetch, and SavePage one
//     batched read of its links' states. Entries set aside are still read,
//     to be counted: a run reads every entry of its shard's frontier once.
//   - MaxPatternChain also cuts long legitimate chains within one pattern
//     (pagination beyond 100 pages deep).
//   - HTML served as text/plain or application/octet-stream is not parsed
//     for links; a binary served as text/html is tokenised.
//   - A redirect target done by an earlier run is not fetched through the
//     redirect (unless Recrawl); that costs one LastFetch per new target.
//     A URL done at a greater depth is not fetched again to follow its
//     links further, unless Recrawl.
//   - A fetch with redirects may take up to (1 + MaxRedirects) x Timeout
//     on the wire, plus the politeness waits between hops.
//   - A redirect loop is recognised by a URL repeated byte for byte; a loop
//     through different spellings of one URL ends at MaxRedirects.
//   - A redirect that only adds a session id (/p -> /p?PHPSESSID=1) is
//     followed, and the content stored in the row of the URL with the id;
//     one that sends the id back to /p again is a loop.
//   - A session-id variant of a URL left queued (by an earlier run or
//     another shard) stays queued while another spelling of it is met
//     first in a run.
//   - Links to the page itself are not recorded as anchors.
//   - Shards: a host moves to another shard when Shards changes; ShardOf's
//     bucket ranges spread hosts evenly but are no consistent hash. Fetch
//     records do not say which shard made them. A robots.txt that
//     redirects to another host is followed there (RFC 9309), whatever its
//     shard.
//   - A redirect into a host whose robots.txt cannot be had fails with
//     kind redirect.
//   - A sitemap's hints ride with the entry in memory: an entry read back
//     from the store (a resume, a host whose window was full) has none.
//   - Sitemaps are read once per origin and run, whatever their size: a
//     50,000 URL sitemap queues 50,000 entries in the store at once.
//   - http.ProxyFromEnvironment reads the environment once per process.
package crawler
