// Package archive reads and writes web archives: WARC 1.1 files (ISO 28500,
// the format of Heritrix, Browsertrix, wget --warc-file and Common Crawl)
// and their CDXJ indexes (the index pywb reads), through the WARC library
// github.com/nlnwa/gowarc/v3.
//
// A [Writer] writes one gzip member per record: a warcinfo record first,
// then a response record per [Capture] (a resource record when the capture
// has no HTTP header), and keeps the CDXJ line of each, written sorted by
// [Writer.WriteIndex]. SURT keys, offsets and lengths follow webrecorder's
// warcio (version 2.4.11, its cdx-index command). With [Writer.Dedupe], a
// capture whose payload the file holds already becomes a revisit record;
// a capture's Rendered page follows it as a conversion record.
//
// A [Reader] yields the captures of a WARC file, gzipped or plain, WARC/1.0
// or 1.1: response records, and resource records with an http(s) URI.
// Bodies are de-chunked and decoded per their HTTP headers, then cut at a
// size limit. A conversion record that follows the capture it refers to
// comes back as that capture's Rendered. Revisit records come back, with
// Revisit set and no body, only with [Reader.Revisits] (and only those of
// profile identical-payload-digest that name their record). The other
// records (request, metadata, warcinfo; responses and resources with
// other URIs, such as Heritrix's dns: lookups and wget's log as
// metadata://...) are counted in [Counts] and skipped.
//
// The package knows nothing of the WebTable or of crawling: programs move
// captures between it and package webtable.
//
// # Caveats
//
//   - The WARC library buffers each record's block before handing it over:
//     up to 1 MiB in memory, the rest in a temporary file. Records whose
//     header declares more than [MaxRecord] (1 GiB) are refused from that
//     Content-Length before any of their block is read, gzipped or plain,
//     file or stream: the Reader decompresses each gzip member itself and
//     reads the record's header before the library sees the record.
//   - A gzip member must hold exactly one record: bytes after the record
//     in its member (blank lines aside) stop the reading with an [*Error].
//   - A WARC gzipped as one stream rather than one member per record is
//     refused (the library would read its first record only).
//   - A Writer sorts its CDXJ lines in memory up to 32 MiB of them (some
//     150,000 records), then in temporary files that WriteIndex merges.
//   - A damaged file (a truncated gzip member, a record whose Content-Length
//     is wrong, bytes that are no record) stops the reading at the first
//     damage with an [*Error] naming the file and offset; the captures
//     before it were already returned.
package archive
