// Package webgen is a generated web for crawl benchmarks and tests: an HTTP
// proxy on loopback that answers for virtual hosts named like
// h0042.web.test, all under the registrable domain web.test, so a crawl
// reaches thousands of hosts with --proxy and --allow-domain web.test,
// with no DNS and no network beyond 127.0.0.1.
//
// Two shapes:
//
//   - [Grid]: Hosts hosts of Pages pages each; page i of host h links to
//     pages 3i+1..3i+4 (mod Pages) of its host and to page i of hosts
//     h+97 and h+194 (mod Hosts), so everything is reachable from
//     h0000.web.test/p/0;
//   - [Tree]: one host, tree.web.test, whose page n links to the Fan new
//     pages Fan*n+1..Fan*n+Fan: a frontier that grows Fan times faster
//     than the pages fetched.
//
// Every page is text/html of about PageBytes bytes; /robots.txt is a 404
// (allow all). The server counts page requests and, for each host, the
// shortest gap between two requests' arrivals; it keeps no per-URL map, so
// its own memory stays small beside the crawler it serves (a bitmap of
// pages requested, to tell a page fetched twice).
package webgen
