// Package sitemap reads sitemap files (https://www.sitemaps.org/protocol.html):
// a <urlset> that lists pages, each with its optional lastmod, changefreq
// and priority, or a <sitemapindex> that lists other sitemap files. It
// does no I/O of its own: [Parse] reads from an io.Reader, and the crawler
// fetches the files. [Write] writes one, for tests and test webs; Parse
// reads back what it writes.
//
// A file may be gzip-compressed (Parse looks at its first bytes, not its
// name). The protocol's limits are enforced, or smaller ones a caller
// sets in [Limits]: by default at most [MaxURLs] entries and [MaxBytes]
// uncompressed bytes per file. Entries beyond the first MaxURLs are
// counted in [File.Skipped], not returned; a file longer than MaxBytes is
// read up to there and marked [File.Cut].
//
// # Caveats
//
//   - Element names are matched without their namespace: <url> of any
//     namespace is an entry. Extensions (image:, news:, video:) are skipped.
//   - Entries past the URL limit are counted by looking for "<loc" in the
//     rest of the file, not by parsing it: a count, not a validation.
//   - Plain-text sitemaps (one URL a line) and RSS/Atom feeds are not read:
//     Parse returns an error wrapping [ErrNotSitemap].
//   - Whether a listed URL may be fetched (its host, robots.txt, depth) is
//     the caller's to decide; Parse only trims the spaces around it.
package sitemap
