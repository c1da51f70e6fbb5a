package crawler

import (
	"net/url"
	"slices"
	"strings"

	"github.com/webtable/webtable/urlkey"
)

// Crawler traps. Three defences, each documented in doc.go ("Crawler
// traps"):
//
//   - isTrap refuses a URL longer than MaxURLLength or with a path segment
//     repeated more than MaxSegmentRepeats times;
//   - frontierKey makes URLs that differ only in session-id parameters one
//     frontier entry, so a page linking to itself with a fresh ?sid= is
//     fetched once;
//   - urlPattern and MaxPatternChain stop a chain of links that never
//     leaves one URL pattern (an endless calendar, /cal?month=N+1), however
//     deep Config.Depth allows.

// MaxPatternChain is the most consecutive link hops followed within one
// URL pattern (same host, same path once digit runs are blanked, same
// query parameter names): /cal/2026/12 -> /cal/2027/01 -> ... or
// /cal?month=7 -> /cal?month=8 -> ... A link that would make the chain
// longer is kept as an anchor but not followed, and counted in Stats.Traps.
// Links from the same page to many URLs of one pattern (a catalogue
// /p/1 ... /p/9999) are not a chain and are not limited.
const MaxPatternChain = 100

// isTrap reports a URL the crawler refuses to follow: longer than
// MaxURLLength bytes, or with a path segment repeated more than
// MaxSegmentRepeats times.
func isTrap(u *url.URL, s string) bool {
	if len(s) > MaxURLLength {
		return true
	}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	if len(segs) <= MaxSegmentRepeats {
		return false
	}
	count := make(map[string]int, len(segs))
	for _, seg := range segs {
		if seg == "" {
			continue
		}
		count[seg]++
		if count[seg] > MaxSegmentRepeats {
			return true
		}
	}
	return false
}

// sessionParams are query parameter names (lower case) that carry a
// session id whatever their value. "sid" is ambiguous (a story id on some
// sites) and counts only with a token-like value, see isSessionParam.
var sessionParams = []string{
	"phpsessid", "jsessionid", "sessionid", "session_id", "sessid",
	"aspsessionid", "cfid", "cftoken", "oscsid", "zenid",
}

// isSessionParam reports whether the query parameter name=value carries a
// session id: one of sessionParams (or ASP's aspsessionidXXXX), or "sid"
// with a value of at least 16 letters and digits.
func isSessionParam(name, value string) bool {
	n := strings.ToLower(name)
	if slices.Contains(sessionParams, n) || strings.HasPrefix(n, "aspsessionid") {
		return true
	}
	if n != "sid" || len(value) < 16 {
		return false
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// withoutSession returns u without session-id query parameters and
// without ";jsessionid=..." path parameters (Java servlets), or u itself
// when it has none. Other parameters keep their order and spelling.
func withoutSession(u *url.URL) *url.URL {
	path := u.EscapedPath()
	cut := -1
	if strings.IndexByte(path, ';') >= 0 {
		cut = strings.Index(strings.ToLower(path), ";jsessionid=")
	}
	if cut < 0 && u.RawQuery == "" {
		return u
	}
	var q []string
	dropped := false
	if u.RawQuery != "" {
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if ku, err := url.QueryUnescape(k); err == nil {
				k = ku
			}
			if isSessionParam(k, v) {
				dropped = true
				continue
			}
			q = append(q, kv)
		}
	}
	if cut < 0 && !dropped {
		return u
	}
	c := *u
	if cut >= 0 {
		// Every ";jsessionid=" goes, not only the first, so that the
		// result is its own canonical form (FuzzFrontierKey).
		for cut >= 0 {
			rest := path[cut+1:]
			end := strings.IndexAny(rest, ";/")
			if end < 0 {
				path = path[:cut]
			} else {
				path = path[:cut] + rest[end:]
			}
			cut = strings.Index(strings.ToLower(path), ";jsessionid=")
		}
		if p, err := url.PathUnescape(path); err == nil {
			c.Path, c.RawPath = p, path
		}
	}
	c.RawQuery = strings.Join(q, "&")
	c.ForceQuery = false
	return &c
}

// frontierKey identifies a URL in the frontier of a run (the seen set):
// its row key once session-id parameters are removed, so that
// /page?PHPSESSID=1 and /page?PHPSESSID=2 are one entry, fetched once (as
// the first spelling met). The store still keys rows by urlkey.KeyOf.
func frontierKey(u *url.URL) string {
	return urlkey.KeyOf(withoutSession(u))
}

// urlPattern is the shape of a URL for MaxPatternChain: host, then the
// path and the sorted names of the query parameters (values dropped), with
// every run of digits in them replaced by "0" (so /cal?2026-12 and
// /cal?2027-01 match too).
func urlPattern(u *url.URL) string {
	rest := u.EscapedPath()
	if u.RawQuery != "" {
		var names []string
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, _, _ := strings.Cut(kv, "=")
			names = append(names, k)
		}
		slices.Sort(names)
		rest += "?" + strings.Join(slices.Compact(names), "&")
	}
	var b strings.Builder
	b.WriteString(u.Host)
	b.WriteByte(' ')
	digits := false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if '0' <= c && c <= '9' {
			if !digits {
				b.WriteByte('0')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}
