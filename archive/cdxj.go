package archive

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// cdxjFields is the JSON part of a CDXJ line, in warcio's field order.
type cdxjFields struct {
	URL      string `json:"url"`
	MIME     string `json:"mime,omitempty"`
	Status   string `json:"status,omitempty"`
	Digest   string `json:"digest"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

// cdxjLine is the CDXJ line of one record: "SURT timestamp {json}\n", as
// warcio's cdx-index writes it (status 0 = none).
func cdxjLine(rawURL, warcDate, mime string, status int, digest string, length, offset int64, filename string) string {
	f := cdxjFields{URL: rawURL, MIME: mime, Digest: digest,
		Length: strconv.FormatInt(length, 10), Offset: strconv.FormatInt(offset, 10), Filename: filename}
	if status != 0 {
		f.Status = strconv.Itoa(status)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // JSON.stringify leaves <, > and & alone
	enc.Encode(f)            // a struct of strings always encodes
	return SURT(rawURL) + " " + cdxjTimestamp(warcDate) + " " + b.String()
}

// cdxjTimestamp is the 14 digits of a WARC-Date (YYYYMMDDhhmmss).
func cdxjTimestamp(date string) string {
	s := strings.NewReplacer("-", "", ":", "", "T", "").Replace(date)
	if len(s) > 14 {
		s = s[:14]
	}
	return s
}

var wwwPrefix = regexp.MustCompile(`^(https?://)www\d*\.`)

// SURT is the sort-friendly form of a URL that CDXJ indexes are keyed by,
// as warcio computes it: lower case, a leading www. (or www2. ...)
// dropped, host labels reversed and joined by commas, the port when not
// the default, ")" and the path, then the query's parameters sorted.
//
//	http://www.cnn.com/a?b=1&a=2 -> com,cnn)/a?a=2&b=1
//	https://cnn.com:8080/        -> com,cnn:8080)/
//
// Other schemes, and URLs that do not parse, are returned as they are.
func SURT(rawURL string) string {
	if !strings.HasPrefix(rawURL, "https:") && !strings.HasPrefix(rawURL, "http:") {
		return rawURL
	}
	s := strings.ToLower(wwwPrefix.ReplaceAllString(rawURL, "$1"))
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return rawURL
	}
	labels := strings.Split(u.Hostname(), ".")
	slices.Reverse(labels)
	out := strings.Join(labels, ",")
	if p := u.Port(); p != "" && !(p == "80" && u.Scheme == "http") && !(p == "443" && u.Scheme == "https") {
		out += ":" + p
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	out += ")" + path
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		slices.Sort(args)
		out += "?" + strings.Join(args, "&")
	}
	return out
}
