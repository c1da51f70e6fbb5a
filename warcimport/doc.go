// Package warcimport builds a WebTable from WARC files instead of the
// network (crawl --from-warc), by the crawler's rules: each capture
// becomes a version of its row at its capture time; the body of a 2xx
// HTML page (of any page with Options.StoreAll) is kept; the links of an
// HTML page become anchors; a status of 400 or more is a failed fetch.
// Nothing is fetched or queued. [File] imports one file, [Files] a list of
// them in order, saying why it stopped as a crawl does (a crawlrun.Error).
//
// # Caveats
//
// [File] stops at the first damaged record: the captures before it are
// stored, and importing the file again stores them again as the same
// versions. A capture whose URL the WebTable cannot key is skipped and
// counted in Stats.Skipped, not an error. Package archive reads the files;
// this package is where they meet the store.
package warcimport
