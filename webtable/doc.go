// Package webtable is the WebTable of the BigTable paper, kept in a
// [bigtable] table named "webtable": one row per web page, keyed by its
// reversed URL (see package urlkey), so that a whole site is one contiguous
// range of rows.
//
// A row holds four column families:
//
//	contents:html     the page body exactly as fetched (raw bytes, no charset
//	                  conversion); one version per fetch whose content changed,
//	                  at the fetch time (whole milliseconds). Beside it, at the
//	                  same timestamp, contents:sha256 (hex) and contents:meta:
//	                  the status, "truncated" for a body cut at the size limit
//	                  and the URL fetched (scheme included: the row key drops
//	                  it and fetch:record keeps only the latest) on its first
//	                  line, then the status line and response headers as
//	                  received (HTTP/1.1 wire form, byte for byte):
//	                  "200 http://www.cnn.com/\nHTTP/1.1 200 OK\r\n...";
//	                  what a WARC record of the version needs
//	                  ([WebTable.Captures]). Stores before
//	                  [FormatContentsMeta] held these as contents:status,
//	                  contents:url, contents:headers and contents:truncated.
//	                  The body is the decoded one: the transport removes gzip
//	                  and net/http removes chunking, while the stored headers
//	                  still names them (Content-Encoding, Transfer-Encoding).
//	                  Versions stored before headers were kept have none.
//	                  Three versions are kept by default ([Options.Versions]).
//	                  A web-archive import also keeps contents:seen (the
//	                  sha256 of a capture equal to the version before it, and
//	                  that capture's status, URL and headers, at its time,
//	                  with no contents:html) so that captures arriving out of
//	                  order still yield the right versions.
//	                  Captures of one page in one millisecond with different
//	                  bodies each get their own version (or contents:seen) at
//	                  consecutive microseconds of that millisecond, ordered by
//	                  the bodies' sha256, whatever order they arrive in; the
//	                  time shown and exported stays the millisecond
//	                  ([WebTable.Import] gives the whole rule).
//	contents:rendered the page as headless Chromium built it (crawl
//	                  --render), at its fetch's time, one version per
//	                  rendered fetch; see rendered.go.
//	anchor:<referrer> the text of a link pointing at this page, one column per
//	                  referring page (urlkey.Referrer form: anchor:cnnsi.com).
//	                  Written when the referrer is crawled, whether or not this
//	                  page is ever fetched. One version kept.
//	mime:type         the media type of the last fetch (text/html). One version.
//	fetch:record      the last fetch of the URL, one JSON object:
//	                  {"url":"http://www.cnn.com/","status":200,
//	                  "time":"2026-12-02T04:01:59.123Z","length":5120,
//	                  "charset":"utf-8","etag":"\"a3\"","depth":1,
//	                  "links":12,"links_kept":12}, with last_modified,
//	                  redirect, error, truncated, rendered and render_ms
//	                  when they apply, a sitemap's hints for a page queued
//	                  from one and a continuous crawl's change history (an
//	                  empty field is left out and reads as empty); links
//	                  counts the distinct targets found, links_kept those
//	                  stored as anchors. One version: a fetch replaces the
//	                  whole record. One cell rather than a column per field,
//	                  because each stored cell costs a crawl about as much as
//	                  the next: stores before [FormatFetchRecord] held a
//	                  column per field (fetch:url, fetch:status, ...).
//	fetch:state       the URL's frontier state: queued, done or failed.
//
// A crawl that takes screenshots (crawl --screenshots) adds a fifth
// family, screenshot:png, created by [WebTable.EnsureScreenshots]
// ([OptionalFamilies]).
//
// Beside them, the indexing jobs (cmd/index, package jobs) write derived
// families, text, rank and dup, and nothing else ([DerivedFamilies],
// [WebTable.WriteDerived]); their progress rows live under [JobPrefix].
//
// The crawler writes through typed calls: [WebTable.RecordFetch] stores a
// fetched page's row in one atomic write, [WebTable.AddLinks] writes the
// anchors and frontier entries it produced in bulk, and [WebTable.SetState]
// marks it done only after both are committed. A crash between the steps
// leaves the page "queued", so it is fetched again and nothing is lost.
// [WebTable.Save] does all three on the embedded store in one bulk write,
// shared with the saves of other pages that arrive meanwhile (group
// commit), committed in that order. [WebTable.CrawlStore] is the WebTable
// as the crawler's store (crawlstore.Store and its optional powers), in
// the crawler's own types (crawlstore.Entry, Page, Fetch, State), so that
// no program converts one into another; it remembers the rows it queued
// as new, which hold no fetch, to spare the crawl two reads per page.
//
// Readers use [WebTable.Get], [WebTable.Versions], [WebTable.Scan],
// [WebTable.Stats] and [WebTable.Errors]; none of them returns raw bigtable
// rows.
//
// Web archives go through [WebTable.Captures], which hands out stored
// versions with what a WARC record of each needs, and [WebTable.Import],
// which stores a capture read from one at its capture time (package
// archive reads and writes the files).
//
// # Format versions
//
// The store's [FormatVersion] is kept in the row [FormatKey]; a store
// without it, written before versions existed, is [FormatOriginal] (a
// table without rows holds no old form: it is [FormatNewest]). Readers
// read the forms of [FormatNewest] and of the version before it only; a
// crawl migrates an older store once, a step per version, each step
// resumable ([WebTable.Migrate]); a store newer than the program is refused
// and never written ([New]). The constants say what each version changed;
// docs/schema.md lists them.
//
// # Caveats
//
//   - The frontier has rows of its own, after every page, under
//     [FrontierPrefix]: one row per queued URL, keyed by a bucket of its
//     host's hash, the host and the order of discovery (see
//     [FrontierEntryKey]), so a resumed crawl reads the hosts of its
//     buckets ([WebTable.FrontierHosts]) and each host's entries from a
//     cursor ([WebTable.FrontierNext]), never the whole table. A page's row
//     still says queued in fetch:state, which is what decides whether a URL
//     was seen; until it is fetched that is its only fetch cell (its URL
//     and depth are in its frontier entry). Scans and Stats of pages leave the reserved rows out
//     ([PageRange]); Copy copies them.
//     Deleted entries leave tombstones in the embedded store until
//     compactions drop them, so [WebTable.Save] keeps, per host, a hint of
//     where its live entries start ([FrontierHintPrefix],
//     [WebTable.FrontierHint]); it is a hint, checked against the store,
//     never the only record of anything.
//   - A crawl split into shards keeps one record per shard and a shared
//     page budget under [ShardPrefix] ([WebTable.UpdateShard],
//     [WebTable.Shards], [WebTable.ReservePages]); [ShardWatch] decides
//     from them when the whole crawl is finished (every shard idle and
//     checking its part, no counter of work moving). The budget belongs to the
//     table: a new crawl with a new --max-pages needs a new table. A
//     WebTable told its shard ([WebTable.SetShard]) also notes, with each
//     entry it queues for another shard's host, that host in the other
//     shard's inbox ([FrontierInboxPrefix]), which that shard's running
//     crawl reads ([WebTable.FedHosts]) to take the work up at once; a
//     note is a hint, never the only record of an entry.
//   - Whether content changed is decided by comparing the SHA-256 of the body
//     with the newest stored contents:sha256. [WebTable.RecordFetch] does it
//     inside one conditional mutation, so two crawlers storing the same page
//     at once still store it once; [WebTable.Save] on the embedded store
//     reads the newest sum and then writes (a bulk call holds no conditional
//     mutation), which relies on the crawler never storing one URL twice at
//     once, and with [Fetched.NewRow] reads nothing.
//   - Timestamps are whole milliseconds so the same table can live on Cloud
//     Bigtable, which truncates to milliseconds; the one exception is a
//     web-archive import of captures of one page in one millisecond with
//     different bodies, which the embedded store keeps at microseconds of
//     it and Cloud Bigtable cannot keep (the import stops with an error
//     saying so rather than let one overwrite the other). A WARC carries
//     the millisecond: after an export and import, such versions keep
//     their order and millisecond, but may take other microseconds of it.
package webtable
