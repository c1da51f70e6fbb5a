package search

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/webtable/webtable/jobs/text"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// Caps on what one document holds.
const (
	// MaxAnchors is how many referring hosts' anchor texts a page's
	// documents hold (the first in key order); MaxAnchorText bounds each.
	MaxAnchors    = 100
	MaxAnchorText = 200
	// CappedWithin marks a version as capped (FieldCapped) when its text
	// is within this many bytes of jobs/text.MaxText: the text job cuts at
	// a line end at or before the cap, so a text this long was probably
	// cut.
	CappedWithin = 1 << 10
)

// docID is the document id of the version of key stored at ts.
func docID(key string, ts webtable.Timestamp) string {
	return key + " " + strconv.FormatInt(int64(ts), 10)
}

// parseID splits a document id into its row key and version timestamp.
func parseID(id string) (key string, ts webtable.Timestamp, ok bool) {
	i := strings.LastIndexByte(id, ' ')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return id[:i], webtable.Timestamp(n), true
}

// document is what the index holds of one version.
type document struct {
	ID     string
	Fields map[string]any
}

// versionText is one version's text cells.
type versionText struct {
	ts                webtable.Timestamp
	title, body, lang string
}

// rowDocs builds the documents of one row: one per text version, and the
// digest that tells a rerun whether they changed.
func rowDocs(r webtable.Row) (docs []document, digest string) {
	byTS := map[webtable.Timestamp]*versionText{}
	var anchors []string
	seenHost := map[string]bool{}
	for _, c := range r.Cells {
		switch c.Family {
		case webtable.FamilyText:
			v := byTS[c.Timestamp]
			if v == nil {
				v = &versionText{ts: c.Timestamp}
				byTS[c.Timestamp] = v
			}
			switch c.Qualifier {
			case text.ColTitle:
				v.title = string(c.Value)
			case text.ColBody:
				v.body = string(c.Value)
			case text.ColLang:
				v.lang = string(c.Value)
			}
		case webtable.FamilyAnchor:
			host, _, _ := strings.Cut(c.Qualifier, "/")
			a := strings.TrimSpace(string(c.Value))
			if a == "" || seenHost[host] || len(anchors) == MaxAnchors {
				continue
			}
			seenHost[host] = true
			anchors = append(anchors, cut(a, MaxAnchorText))
		}
	}
	if len(byTS) == 0 {
		return nil, ""
	}
	versions := make([]*versionText, 0, len(byTS))
	for _, v := range byTS {
		versions = append(versions, v)
	}
	slices.SortFunc(versions, func(a, b *versionText) int { return cmp.Compare(a.ts, b.ts) })
	pageURL := urlOf(r)
	sites := sitesOf(pageURL)
	words := urlWords(pageURL)
	h := sha256.New()
	for _, s := range append(append([]string{words}, sites...), anchors...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for i, v := range versions {
		to := float64(Forever)
		if i+1 < len(versions) {
			to = float64(versions[i+1].ts)
		}
		f := map[string]any{
			FieldTitle: v.title, FieldBody: v.body, FieldURL: words, FieldSite: sites,
			FieldLang: v.lang, FieldFrom: float64(v.ts), FieldTo: to,
		}
		if len(anchors) > 0 {
			f[FieldAnchor] = anchors
		}
		if len(v.body) >= text.MaxText-CappedWithin {
			f[FieldCapped] = "yes"
		}
		docs = append(docs, document{ID: docID(r.Key, v.ts), Fields: f})
		for _, s := range []string{docID(r.Key, v.ts), v.title, v.body, v.lang} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	return docs, hex.EncodeToString(h.Sum(nil)[:16])
}

// urlOf is the page's URL: the fetch record's, else built from the key.
func urlOf(r webtable.Row) string {
	if f, err := webtable.FetchOf(r); err == nil && f.URL != "" {
		return f.URL
	}
	if u, err := urlkey.URL(r.Key, "http"); err == nil {
		return u
	}
	return ""
}

// sitesOf lists the host of rawURL and its parent domains down to the
// registrable one: https://a.b.example.co.uk/ -> a.b.example.co.uk,
// b.example.co.uk, example.co.uk.
func sitesOf(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	out := []string{host}
	reg, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil || net.ParseIP(host) != nil {
		return out
	}
	for h := host; h != reg; {
		_, rest, ok := strings.Cut(h, ".")
		if !ok {
			break
		}
		h = rest
		out = append(out, h)
	}
	return out
}

// HostOf is the host of a row key (www.cnn.com of com.cnn.www/a): the
// unit of "at most 2 hits per host".
func HostOf(key string) string {
	u, err := urlkey.URL(key, "http")
	if err != nil {
		u, err = urlkey.URL(key, "https")
	}
	if err != nil {
		host, _, _ := strings.Cut(key, "/")
		return host
	}
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	return pu.Host
}

// urlWords is the host and path of rawURL, for the url field.
func urlWords(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	p, err := url.PathUnescape(u.EscapedPath())
	if err != nil {
		p = u.Path
	}
	return u.Hostname() + " " + p
}

// cut shortens s to at most n bytes, at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
