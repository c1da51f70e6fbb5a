// Package realweb is a test web that looks like the real one: http and
// https origins under one host name linking to each other, real TLS on
// loopback signed by a test CA, origins that cannot be reached in each of
// the ways the internet fails, redirects between the schemes, and pages
// with thousands of links. It also serves Debian's installed HTML manuals
// under their real names ([Manuals]).
//
// Everything is reached through one HTTP proxy on 127.0.0.1 ([Web.Proxy]):
// plain requests in absolute form for http, CONNECT host:443 for https.
// Host names are virtual (under [Domain], real.test), so no DNS is needed
// and nothing leaves loopback. A crawl of a generated web is
//
//	crawl --proxy $(w.Proxy()) --ca-cert ca.pem --allow-domain real.test http://www.real.test/
//
// with ca.pem written by [Web.WriteCACert].
//
// # Origins
//
// An origin is (scheme, host, port), RFC 6454's tuple. [Start] makes these;
// [Web.Origins] lists them, [Web.Behaviour] says what one does. Any origin
// not listed is [Closed].
//
//	origin                             behaviour      what a client sees
//	http://www.real.test               serves         the portal, the seed
//	https://www.real.test              serves         the same pages
//	https://www.real.test:8444         closed         CONNECT answered 502 (the port is closed)
//	http(s)://h000.real.test ...       serves         the site hosts (Config.Hosts), same pages on both
//	https://secure.real.test           serves         https only...
//	http://secure.real.test            closed         ...its http answered 502 by the proxy
//	http://plain.real.test             serves         http only...
//	https://plain.real.test            closed         ...CONNECT answered 502
//	http(s)://redir.real.test          serves         redirects between the schemes (below)
//	http(s)://slow.real.test           serves         robots.txt with Crawl-delay (Config.CrawlDelay)
//	http://robots-down.real.test       robots-reset   pages 200, robots.txt request reset
//	https://robots-down.real.test      closed         CONNECT answered 502
//	https://refused.real.test          refused        CONNECT answered 403 Forbidden
//	https://tls-alert.real.test        tls-alert      tunnel opens; ClientHello answered by a fatal handshake_failure alert
//	https://tls-untrusted.real.test    tls-untrusted  tunnel opens; certificate from a CA nobody trusts
//	https://reset.real.test            reset          the proxy resets (RST) the CONNECT's connection
//	http://reset-http.real.test        reset          the proxy resets the plain request's connection
//	http of refused, tls-alert,
//	tls-untrusted, reset;
//	https of reset-http                closed         502 (never linked)
//
// A reset is SO_LINGER 0 then close: the client reads ECONNRESET. "Closed"
// means the proxy dialled a loopback port nobody listens on and answers 502
// Bad Gateway with the dial error; to CONNECT that is an error for the
// client, to a plain request a 502 response (as squid or any forward proxy
// answers when the origin refuses). Unknown host names are closed too.
//
// Where both schemes of a host serve, a path answers the same bytes on
// each, except the redirects of redir.real.test: the crawler keys a page
// by host and path, not scheme, and must reach it by whichever origin
// works.
//
// # Pages
//
// www.real.test/ (the seed, [Web.Seeds]) links to about.html (relative and
// https), /all.html, every site host's "/" (http for even hosts, https for
// odd), and to every named host, by the scheme that works and by the one
// that does not:
//
//   - site host hNNN has Config.Pages pages, "/" and /dD/pN.html (D = N
//     mod 4). Page N links to pages 2N+1 and 2N+2 (a tree, so every page
//     is reachable from "/"), then to random pages of its host (4 in 5)
//     or of another site host until it has Config.Links links; the last
//     of them is one of the portal's links to the named hosts, in turn.
//     Each link is written relative (p9.html, ../d2/p6.html, ./),
//     root-relative, http://, https:// or scheme-relative (//h001...),
//     chosen from Config.Seed, with a #fragment one time in eight. "/"
//     also links to the next site host and back to the portal.
//   - www.real.test/all.html has Config.IndexLinks links (3,000 by
//     default) going round every site page, as http://, https://,
//     //host and https://...#sN in turn: thousands of links, few new
//     keys.
//   - secure.real.test: "/", s1.html ... s5.html, a chain: page k links
//     "./", then http://secure.real.test/s(k mod 5 + 1).html (the
//     closed scheme), then s(k+1).html relative (so by https). A crawler
//     that keys its frontier by row key and keeps the first URL it met
//     holds s2 ... s5 by http, and reaches them only by trying https.
//     only-http.html is linked only as http://secure.real.test/only-http.html
//     ([Web.ReachableByFallbackOnly]). plain.real.test mirrors it with the
//     schemes swapped: p1.html ... p5.html, only-https.html.
//   - slow.real.test: "/", w1.html ... w3.html.
//   - robots-down.real.test: r0.html ... r2.html.
//   - refused, tls-alert, tls-untrusted, reset, reset-http and
//     www.real.test:8444: x0.html ... x2.html, each linked by its failing
//     scheme only (from the portal and site pages; x0 of refused also by
//     a redirect).
//   - www.real.test/private/0.html ... 2.html: served, but robots.txt
//     disallows /private/ ([Web.Disallowed]).
//
// # Redirects
//
//	http://redir.real.test/up/K.html -> 301 https://redir.real.test/up/K.html (200)
//	https://redir.real.test/down/K.html -> 302 http://redir.real.test/down/K.html (200)
//	http(s)://redir.real.test/chain/K.html -> 301 https://redir.real.test/hop/K.html
//	http(s)://redir.real.test/hop/K.html -> 302 http://redir.real.test/last/K.html
//	http(s)://redir.real.test/last/K.html -> 301 https://redir.real.test/final/K.html
//	http(s)://redir.real.test/final/K.html -> 200 (linked from nowhere: reached through the chain only)
//	http(s)://redir.real.test/to-refused.html -> 302 https://refused.real.test/x0.html
//
// for K = 0, 1, 2. The portal links http up/K, https down/K and http
// chain/K; redir.real.test/ links them relatively. [Web.Redirects] lists
// every redirect met, URL -> Location.
//
// # robots.txt
//
//	www.real.test (both schemes)       User-agent: * / Disallow: /private/
//	slow.real.test (both schemes)      User-agent: * / Crawl-delay: N / Disallow:
//	secure, plain                      User-agent: * / Allow: /
//	odd site hosts                     User-agent: * / Disallow:
//	even site hosts, redir             404 (allow all)
//	http://robots-down.real.test       connection reset: unreachable
//
// RFC 9309 (2.3.1.4) says a robots.txt unreachable through a network or
// server error means complete disallow: the oracle counts robots-down's
// pages as unreachable, listed under http://robots-down.real.test in
// [Web.UnreachableOrigins], though the origin would serve them.
//
// # Oracle and counters
//
// The web's description alone (never HTTP) gives what a correct crawl from
// the seeds must store: [Web.Reachable] (one URL per row key, with the
// scheme it is reachable by), [Web.UnreachableOrigins] (failing origin ->
// how many distinct pages linked through it get no answer by any
// scheme), [Web.Redirects], [Web.Disallowed], [Web.NotFound] and
// [Web.ReachableByFallbackOnly]. A correct crawler obeys robots.txt,
// follows redirects, and tries the other scheme of a row key whose origin
// failed; the package's own test checks the oracle against such a crawler
// built on Go's http.Client.
//
// The servers count what they see: [Web.Requests] per URL (scheme, host,
// port, path), [Web.Connects] per origin, [Web.TotalPageRequests],
// [Web.FetchedTwice] (row keys answered twice, schemes together) and
// [Web.MinGap] / [Web.MinGaps]: the shortest time between two requests'
// arrivals at one host name over both schemes, since politeness belongs to
// the server, not to the origin.
//
// The same [Config] gives the same web: hosts, pages, links and bytes come
// from Config.Seed alone (the certificates are new at each start).
//
// # Manuals
//
// [ServeDirs] serves directories as static files under URL prefixes, and
// [Manuals] two Debian manuals, those of TestManuals ([Python], [Postgres]),
// through a proxy that answers plain http and refuses every CONNECT with
// 403 (so every https URL is unreachable, as where port 443 is blocked):
//
//	/usr/share/doc/python3.11/html        as http://docs.python.org/3.11/       (apt-get install python3.11-doc)
//	/usr/share/doc/postgresql-doc-15/html as http://www.postgresql.org/docs/15/ (apt-get install postgresql-doc-15)
//
// [Manual.Seed] is each one's index.html. [Web.Files] lists every file
// served, [Web.Pages] the HTML ones; the oracle works on them as on a
// generated web, over the registrable domains of the served hosts
// (python.org, postgresql.org: the default --allow-domain of those seeds),
// so links to https://peps.python.org or https://bugs.python.org count in
// [Web.UnreachableOrigins]. With Debian 12's packages: Python 530 pages,
// 526 reachable from the seed (4 are linked from nowhere), and 2,418 pages
// linked on 11 unreachable origins (2,080 on https://bugs.python.org);
// PostgreSQL 1,169 pages, all reachable, and 14 pages on 4 unreachable
// origins. Queries are part of a page's key, as in urlkey. A manual not
// installed skips the test, unless CI=true: then it fails.
//
// # Caveats
//
//   - An http origin is answered by the proxy itself (no origin server
//     behind it); an https origin by a TLS server on loopback, reached
//     through the tunnel. Both are one Go process: gaps are measured at
//     the handlers, not on the wire.
//   - A request is timed when its handler starts, so the first request
//     of a new tunnel after its TLS handshake; see [Web.MinGap].
//   - The oracle's row keys are host[:port]/path written by this
//     package, deliberately not by urlkey, which is code under test.
//   - Counters keep one map entry per URL requested, and the oracle costs
//     about 0.1-0.2 ms of CPU a page (BenchmarkOracle): fine for test webs
//     of up to some 100,000 pages, not for millions.
package realweb
