// Package seeds reads seed lists: the URLs a crawl starts from.
//
// A seed list is a UTF-8 text file with one URL per line. Blank lines and
// lines whose first non-blank character is '#' are ignored; a '#' preceded
// by a blank ends the line's URL (a trailing comment). Every URL must be an
// absolute http or https URL with a host; it is checked and canonicalised
// with [urlkey.Canonical].
//
//	# news
//	http://www.cnn.com/
//	https://www.bbc.co.uk/news   # trailing comment
//
// [Parse] never stops at a bad line: it returns every good seed and one
// [*LineError] (file:line: message) per bad line, so a caller can report them
// all and still crawl the rest. [Load] reads a file; an unreadable file or one
// that holds no seeds at all is an error wrapping [ErrNoSeeds] or the I/O error.
// [Gather] reads the seeds of a crawl: a seed list, then the URLs given as
// arguments.
//
// The file default.txt in this directory is a list of well-known sites
// (embedded, see [Default]).
//
// # Caveats
//
//   - A URL containing " #" cannot be written in a seed list: the blank and
//     hash start a comment. Percent-encode it (%23).
//   - Duplicate seeds (same canonical URL) are kept once, first occurrence wins.
//   - Lines longer than 64 KiB are reported as bad lines rather than read.
package seeds
