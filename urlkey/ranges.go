package urlkey

import (
	"strconv"

	"github.com/webtable/webtable/internal/keyspace"
)

// Range is a range of row keys: Start inclusive, End exclusive. An empty
// Start is the first key and an empty End is unbounded, so Range{} holds
// every key. It has the meaning of Cloud Bigtable's NewRange(begin, end).
type Range struct {
	Start, End string
}

// Contains reports whether key lies in r.
func (r Range) Contains(key string) bool {
	return key >= r.Start && (r.End == "" || key < r.End)
}

// String returns r as "[start,end)", keys quoted.
func (r Range) String() string {
	return "[" + strconv.Quote(r.Start) + "," + strconv.Quote(r.End) + ")"
}

// DomainRanges returns the ranges of row keys of every page of domain and
// its subdomains, on any port, sorted and disjoint. For cnn.com:
//
//	["com.cnn.", "com.cnn0")  com.cnn.www/..., com.cnn.www:8080/..., com.cnn/...
//	["com.cnn:", "com.cnn;")  com.cnn:8080/...
//
// NB: the reversed host is followed by '.', '/' or ':' in every key. '.'
// and '/' are neighbours in ASCII, so one range holds the subdomains and the
// domain on its default port; ':' is not ('0'...'9' lie between), so pages of
// the domain on another port are a second range, and hosts such as
// cnn0.com sort between the two. com.cnnsi/... and com.cnn-money/... are
// outside both.
//
// The domain is a bare host name, without scheme, port or path, and is
// canonicalised as the host of a URL (IDN such as bücher.de accepted). An
// IP address has no subdomains: its ranges are those of [HostRanges]. An
// invalid domain has no pages: the result is nil.
func DomainRanges(domain string) []Range {
	h, kind, err := canonHostInput(domain)
	if err != nil {
		return nil
	}
	if kind != kindName {
		return hostRanges(h)
	}
	r := string(appendReversed(make([]byte, 0, len(h)), h, kind))
	return []Range{{r + ".", r + "0"}, {r + ":", r + ";"}}
}

// HostRanges returns the ranges of row keys of every page of one host, on
// any port, but not its subdomains, sorted and disjoint. For www.cnn.com:
//
//	["com.cnn.www/", "com.cnn.www0")
//	["com.cnn.www:", "com.cnn.www;")
//
// An invalid host has no pages: the result is nil.
func HostRanges(host string) []Range {
	h, kind, err := canonHostInput(host)
	if err != nil {
		return nil
	}
	return hostRanges(string(appendReversed(make([]byte, 0, len(h)), h, kind)))
}

func hostRanges(r string) []Range {
	return []Range{{r + "/", r + "0"}, {r + ":", r + ";"}}
}

// PrefixRange returns the range of row keys that start with the key of a
// URL prefix: PrefixRange("http://www.cnn.com/2024/") holds
// com.cnn.www/2024/ and everything under it. The prefix is canonicalised as
// by [Key] (so http://www.cnn.com is every page of that host on the default
// port) and matched as a string: http://www.cnn.com/20 also holds
// com.cnn.www/2099.html.
func PrefixRange(rawURLPrefix string) (Range, error) {
	p, err := split(rawURLPrefix)
	var b []byte
	if err == nil {
		b, err = appendKey(nil, &p)
	}
	if err != nil {
		return Range{}, &Error{Op: "prefix", URL: rawURLPrefix, Err: err}
	}
	start := string(b)
	return Range{Start: start, End: keyspace.PrefixEnd(start)}, nil
}
