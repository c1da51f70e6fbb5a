// Package webui is the web interface of "query serve": a read-only view of
// a WebTable in a browser, rendered on the server with html/template.
//
// Views (every one also answers Accept: application/json):
//
//	/                      overview: tables, families and their GC policies,
//	                       the crawl's counts, a chart of fetches over time,
//	                       the top of the domain tree, the tablets
//	/domain?name=D         a domain: its subdomains and its rows in key order,
//	                       paged with after=KEY; without name, the top domains
//	/page?row=K | ?url=U   a page: versions, incoming anchors, outgoing links,
//	                       fetch record, MIME type; v=TS shows another version
//	/diff?row=K&a=TS&b=TS  the text of two versions, line by line
//	/body?row=K&ts=TS      a stored version's bytes, as stored (see below)
//	/errors[?domain=D]     failed fetches, paged with after=KEY
//	/tablets               every tablet
//	/crawl                 the queue (frontier entries, pages due to be
//	                       fetched again now and within a day) now and as a
//	                       chart over time, the fetched counts, the pages by
//	                       estimated change rate
//
// Counts that need a scan of the whole table (the crawl's counts, the
// domain tree, the fetch chart) come from a summary built in the background
// and rebuilt when a view finds it older than [Options.SummaryMaxAge] and
// than ten times its own build time; views show its age and never wait for
// it. Every other view reads a bounded
// number of rows: a page of a list, or one row.
//
// # Stored pages are hostile
//
// A stored body is served only by /body, with "Content-Security-Policy:
// sandbox; default-src 'none'" and "X-Content-Type-Options: nosniff" (HTML as
// text/html, anything else as text/plain), and shown in an <iframe sandbox>
// without allow-scripts: it runs no script, submits no form, navigates
// nothing and loads nothing. The interface's own pages allow no script at
// all and load only their style sheet; every value from the store goes
// through html/template's escaping.
//
// # JSON shapes
//
// List and row views use the records "query --json" prints: rows as
// {"row","cells":[{"column","timestamp","value"|"value_base64"}]} (get, scan),
// versions as {"row","timestamp","time","size","sha256","status"}
// (versions), failures as {"row","url","status","time","error"} (errors),
// tablets as {"start","end","bytes","rows"} (tablets). The others:
//
//	overview  {"table", "tables": [names], "families": [{"name","gc_policy"}],
//	           "summary": {"ready","building","built","age_seconds","error",
//	             "stats": {rows,fetched,failed,queued,versions,bytes,cells as in
//	                       query stats --json},
//	             "fetches": [{"start","end","count"}],  (oldest first)
//	             "domains": [tree nodes], "partial"},
//	           "tablets": [tablets], "more_tablets"}
//	tree node {"name": "cnn.com", "key": "com.cnn", "rows": N,
//	           "children": ["www.cnn.com", ...]}
//	domain    {"domain", "summary", "subdomains": [tree nodes],
//	           "rows": [rows with their fetch cells], "next": KEY}
//	page      {"row": row (latest cells but anchors, as query get --json),
//	           "url", "mime", "versions": [versions],
//	           "anchors": [{"referrer","row","text"}] (500 at most),
//	           "anchors_next": REFERRER (pass as anchors=REFERRER for more),
//	           "links": [{"url","row","text","nofollow"}]}
//	diff      {"row", "a": version, "b": version, "truncated", "exact",
//	           "hunks": [[{"op": " "|"-"|"+", "a": line, "b": line, "text"}]]}
//	errors    {"failures": [failures], "next": KEY}
//	crawl     {"sampled_every_seconds",
//	           "samples": [{"time","frontier","due_entries","due_now",
//	                        "due_within_a_day"}],  (oldest first)
//	           "error", "summary": {"ready","fetched","failed","queued",
//	             "versions","change_rates" as in query stats --json}}
//
// A "next" cursor is passed back as after=KEY for the following page.
//
// The queue over time is counted by the server itself, every
// [Options.QueueEvery] (keys only, and at least ten times as long as a
// count took), the last 1,440 counts kept in memory: the chart starts when
// the server does (queue.go says why it is not stored by the crawl).
//
// # Caveats
//
//   - The summary counts the table as it was when it was built; on a live
//     crawl the counts lag by up to SummaryMaxAge plus the time of a scan.
//   - The domain tree keeps at most 200,000 hosts (and says so when a crawl
//     has more); every domain's rows stay reachable by name.
//   - A page of failures reads at most 2,000 rows, so where failures are
//     rare a page may list few or none and still offer "more".
//   - A diff compares at most 256 KiB of text of each version and finds the
//     shortest listing of up to 2,000 changed lines.
package webui
