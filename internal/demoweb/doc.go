// Package demoweb serves an embedded sample web for `crawl --demo` and for
// tests: the hosts www.cnn.com, cnnsi.com and my.look.ca of the BigTable
// paper's example, on 127.0.0.1 only.
//
// The server is an HTTP proxy endpoint: point the crawler's proxy at
// [Server.ProxyURL] and requests such as "GET http://www.cnn.com/ HTTP/1.1"
// arrive with their real host name, so the row keys are the real ones
// (com.cnn.www/). Nothing goes to the internet: a host that is not part of
// the sample web gets 502 Bad Gateway, CONNECT (https) gets 405.
//
// cnnsi.com links to http://www.cnn.com/ with the text "CNN" and my.look.ca
// with "CNN.com". The home page of www.cnn.com changes with [Server.SetPass]
// (pass 1, 2, 3, ... each give a different page), so three crawls with
// recrawl store three versions of contents:html. Each host has a robots.txt
// with one Disallow rule (www.cnn.com/private/, cnnsi.com/members/,
// my.look.ca/cgi-bin/) and links into it, to show robots at work.
// Responses carry an ETag and honour If-None-Match (304).
//
// # Caveats
//
//   - Only GET and HEAD are served; no https.
//   - Hosts are matched on the Host header without port 80.
package demoweb
