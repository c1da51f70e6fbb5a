// Package urlkey turns the URLs a crawler meets into canonical URLs and into
// the row keys of the WebTable, and gives the ranges of row keys that hold a
// host, a domain or a URL prefix. No other package builds or parses row keys
// by hand.
//
// A row key is the URL with its host reversed label by label, so that the
// pages of a domain sort together, as in the Bigtable paper's com.cnn.www:
//
//	http://www.cnn.com/ -> com.cnn.www/
//
// [Key] returns the key of a raw URL, [Canonical] the canonical URL (scheme
// kept), [KeyOf] the key of a URL that is already canonical, and [URL] the
// URL back from a key and a scheme. [Referrer] gives the form used as the
// qualifier of an anchor: column (cnnsi.com). [Host] reverses a host;
// [DomainRanges], [HostRanges] and [PrefixRange] return [Range]s of keys to
// scan. The package is pure (no I/O, no state) and its functions are safe
// for concurrent use.
//
// # Rules
//
// Each line below is a test case (see TestDocRules): an input, "->", and the
// key, or the sentinel error wrapped in the returned [*Error].
//
// Host: lower-cased, labels reversed and joined by '.'; trailing dot dropped.
//
//	http://www.cnn.com/ -> com.cnn.www/
//	https://maps.google.com/index.html -> com.google.maps/index.html
//	HTTP://WWW.CNN.COM/Index.html -> com.cnn.www/Index.html
//	http://www.cnn.com./ -> com.cnn.www/
//
// Internationalised names: UTS #46 mapping for lookup, non-transitional, as
// browsers do (golang.org/x/net/idna); labels in punycode. Underscores are
// allowed; empty labels and characters outside [a-z0-9-_] after mapping are
// not. Percent-encoded hosts are decoded first.
//
//	http://www.bücher.de/a -> de.xn--bcher-kva.www/a
//	http://XN--BCHER-KVA.de/ -> de.xn--bcher-kva/
//	http://faß.de/ -> de.xn--fa-hia/
//	http://ｗｗｗ.cnn.com/ -> com.cnn.www/
//	http://%77ww.cnn.com/ -> com.cnn.www/
//	http://my_site.example.com/ -> com.example.my_site/
//	http://r3---sn-abc.googlevideo.com/ -> com.googlevideo.r3---sn-abc/
//	http://a..b.com/ -> ErrBadHost
//	http://.cnn.com/ -> ErrBadHost
//	http://exa mple.com/ -> ErrBadHost
//	http://*.cnn.com/ -> ErrBadHost
//	http://xn--a.com/ -> ErrBadHost
//
// IP literals are not reversed. IPv4 is read as browsers read it (a host
// whose last label is a number must be an IPv4 address); IPv6 is lower-cased
// and compressed, stays in brackets, and may not have a zone.
//
//	http://127.0.0.1:8080/x -> 127.0.0.1:8080/x
//	http://127.1/ -> 127.0.0.1/
//	http://0x7f.0.0.1/ -> 127.0.0.1/
//	http://1.2.3.256/ -> ErrBadHost
//	http://[::1]:8080/x -> [::1]:8080/x
//	http://[2001:DB8:0:0::1]/ -> [2001:db8::1]/
//	http://[fe80::1%25eth0]/ -> ErrBadHost
//
// Port: the default (80 for http, 443 for https) and an empty port dropped;
// any other kept after ':' without leading zeros.
//
//	http://www.cnn.com:80/ -> com.cnn.www/
//	http://cnn.com:8080/a?b=1 -> com.cnn:8080/a?b=1
//	https://www.cnn.com:80/ -> com.cnn.www:80/
//	http://www.cnn.com:/ -> com.cnn.www/
//	http://www.cnn.com:08080/ -> com.cnn.www:8080/
//	http://www.cnn.com:65536/ -> ErrBadPort
//	http://www.cnn.com:http/ -> ErrBadPort
//
// The scheme is not in the key: http and https of a page share one row (the
// crawler keeps the scheme in a cell). Only http and https are accepted. User
// info and fragment are dropped.
//
//	https://www.cnn.com/ -> com.cnn.www/
//	http://user:pass@www.cnn.com/x -> com.cnn.www/x
//	http://www.cnn.com/index.html#top -> com.cnn.www/index.html
//	mailto:someone@cnn.com -> ErrScheme
//	javascript:alert(1) -> ErrScheme
//	ftp://ftp.cnn.com/ -> ErrScheme
//	/relative/path -> ErrScheme
//	http:///path -> ErrNoHost
//	http:www.cnn.com -> ErrNoHost
//
// Path, in the order of RFC 3986 section 6.2.2: bytes outside pchar
// (unreserved, sub-delims, ':', '@') and '/' are percent-encoded, so UTF-8
// text is encoded as browsers encode it; escapes are upper-cased, and decoded
// when they stand for an unreserved character, nothing else (%2F stays); a
// '%' that starts no escape becomes %25; then dot segments are removed; an
// empty path becomes '/'.
//
//	http://www.cnn.com -> com.cnn.www/
//	http://www.cnn.com/café -> com.cnn.www/caf%C3%A9
//	http://www.cnn.com/caf%c3%a9 -> com.cnn.www/caf%C3%A9
//	http://www.cnn.com/%7Euser/%41 -> com.cnn.www/~user/A
//	http://www.cnn.com/a%2fb -> com.cnn.www/a%2Fb
//	http://www.cnn.com/a b|c -> com.cnn.www/a%20b%7Cc
//	http://www.cnn.com/100% -> com.cnn.www/100%25
//	http://www.cnn.com/a/b/../c -> com.cnn.www/a/c
//	http://www.cnn.com/a/./b/. -> com.cnn.www/a/b/
//	http://www.cnn.com/a/%2E%2E/b -> com.cnn.www/b
//	http://www.cnn.com/../a -> com.cnn.www/a
//
// Query: bytes that must be escaped are escaped as in the path; nothing else
// changes (no decoding, no case change of escapes, no reordering); an empty
// query is dropped.
//
//	http://www.cnn.com/search?q=go&page=2 -> com.cnn.www/search?q=go&page=2
//	http://www.cnn.com/s?Q=%7e&b=1 -> com.cnn.www/s?Q=%7e&b=1
//	http://www.cnn.com/s?q=a b -> com.cnn.www/s?q=a%20b
//	http://www.cnn.com/search? -> com.cnn.www/search
//
// Input: leading and trailing spaces and control characters are ignored,
// and so are tabs and newlines inside, as in browsers: " http://cnn.com/\n"
// is http://cnn.com/.
//
// Limits: a host over [MaxHostLen] (253) bytes and a key over [MaxKeyLen]
// (4096) bytes, the row key limit of Cloud Bigtable, are refused with
// [ErrHostTooLong] and [ErrKeyTooLong].
//
// # Caveats
//
//   - A domain is not one contiguous range of keys when ports are involved:
//     com.cnn.www/ and com.cnn/ sort together, but com.cnn:8080/ sorts after
//     com.cnn0.www/ (host www.cnn0.com), because '0'...'9' lie between '/'
//     and ':'. [DomainRanges] and [HostRanges] therefore return two ranges.
//   - A key with an explicit port does not say which scheme it had
//     (com.cnn:80/ is https://cnn.com:80/), so [URL] needs the scheme.
//   - Canonicalisation is syntactic: it does not remove "www.", sort query
//     parameters, drop session ids or follow redirects, so one page can
//     still have many keys.
//   - Unlike browsers, '\' is not a separator: in the path it is encoded as
//     %5C, as Go's net/url does, and in the host it is refused
//     (http://cnn.com\a is ErrBadHost). http:/host and http:host are refused
//     rather than repaired. Bytes of invalid UTF-8 are percent-encoded one by
//     one in paths and queries, and refused in hosts.
//   - '[', ']', '|', '^', '{', '}' and '`' are percent-encoded in paths and
//     queries (RFC 3986), where browsers send some of them as they are; the
//     server sees the same characters.
//   - Labels over 63 bytes are accepted (browsers accept them; DNS does not).
//     Hosts over 4096 bytes are refused before IDNA mapping, even if mapping
//     would shorten them.
//   - [KeyOf] trusts its argument to be canonical; give it only URLs from
//     [Canonical].
//   - The IDNA tables are those of golang.org/x/net/idna for the Go version
//     in use (Unicode 15 for Go 1.26); a new Unicode version can change the
//     key of a rare IDN host.
package urlkey
