package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Link is a link as written in a page, before resolution against the
// page's URL.
type Link struct {
	Href     string // attribute value, entities decoded
	Text     string // anchor text, whitespace collapsed; img alt if no text
	NoFollow bool   // rel contains nofollow
}

// Links is what [Extract] finds in a page.
type Links struct {
	Base         string // first <base href>, "" if none
	MetaNoFollow bool   // <meta name="robots"> says nofollow (or none)
	Links        []Link // <a href> and <area href>, document order, at most MaxLinks
	Charset      string // encoding used to decode the page
}

// MaxLinks bounds the links collected from one page before resolution,
// so a page of a million links costs bounded memory. The crawler keeps at
// most its Config.MaxLinks (10,000 by default) distinct targets of these
// and counts up to this many; duplicates and junk need headroom, hence four
// times the crawler's default.
const MaxLinks = 40_000

// MaxAnchorText bounds one anchor text, in bytes.
const MaxAnchorText = 1 << 10

// Extract tokenises an HTML page and returns its links. body is the
// page as fetched; contentType is the Content-Type header ("" if none). The
// bytes are decoded to UTF-8 first (Content-Type charset, byte order mark,
// <meta charset>, else windows-1252, as browsers do), so anchor texts from
// ISO-8859-1, Shift_JIS or GBK pages come out as correct UTF-8.
// It never fails: malformed HTML yields what a tokenizer can recover.
func Extract(body []byte, contentType string) Links {
	var s linkScanner
	r, name := decode(body, contentType)
	s.ex.Charset = name
	z := html.NewTokenizer(r)
	z.SetMaxBuf(0)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			s.flush()
			return s.ex
		case html.TextToken:
			if s.inA && s.skipText == 0 && s.text.Len() < MaxAnchorText {
				s.text.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			s.startTag(z, tt)
		case html.EndTagToken:
			s.endTag(z)
		}
	}
}

// linkScanner is what Extract knows while it walks a page's tokens: the
// links so far, and the link it is inside of, if any.
type linkScanner struct {
	ex       Links
	inA      bool // inside a link: cur is being read
	cur      Link
	text     strings.Builder // cur's text so far
	alt      string          // the alt of cur's first <img>
	skipText int             // depth inside <script>/<style>/<title>... within a link
}

// flush ends the current link, if any, and keeps it while there are
// fewer than MaxLinks.
func (s *linkScanner) flush() {
	if !s.inA {
		return
	}
	s.cur.Text = collapse(s.text.String())
	if s.cur.Text == "" {
		s.cur.Text = collapse(s.alt)
	}
	if len(s.ex.Links) < MaxLinks {
		s.ex.Links = append(s.ex.Links, s.cur)
	}
	s.inA, s.cur, s.alt, s.skipText = false, Link{}, "", 0
	s.text.Reset()
}

// startTag reads a start or self-closing tag (tt): a link begins, an
// <img> gives the link its alt, <base> and <meta name="robots"> are
// kept, and text inside scripts and the like is left out of a link's.
func (s *linkScanner) startTag(z *html.Tokenizer, tt html.TokenType) {
	name, hasAttr := z.TagName()
	a := atom.Lookup(name)
	switch a {
	case atom.A, atom.Area:
		s.flush()
		if len(s.ex.Links) >= MaxLinks {
			return // full: no attributes or text read (<base>, <meta> still are)
		}
		href, rel, ok := linkAttrs(z, hasAttr)
		if !ok {
			return
		}
		s.cur = Link{Href: href, NoFollow: hasToken(rel, "nofollow")}
		if a == atom.Area || tt == html.SelfClosingTagToken {
			// <area> has no content; its alt is its text.
			s.inA = true
			s.flush()
			return
		}
		s.inA = true
	case atom.Img:
		if s.inA && s.alt == "" {
			s.alt = attr(z, hasAttr, "alt")
		}
	case atom.Base:
		if s.ex.Base == "" {
			s.ex.Base = strings.TrimSpace(attr(z, hasAttr, "href"))
		}
	case atom.Meta:
		if hasAttr {
			n, c := metaAttrs(z)
			if strings.EqualFold(n, "robots") && (hasToken(c, "nofollow") || hasToken(c, "none")) {
				s.ex.MetaNoFollow = true
			}
		}
	case atom.Script, atom.Style, atom.Template, atom.Textarea:
		if s.inA && tt == html.StartTagToken {
			s.skipText++
		}
	}
}

// endTag reads an end tag: </a> ends the link, the end of a script or the
// like lets its text in again.
func (s *linkScanner) endTag(z *html.Tokenizer) {
	name, _ := z.TagName()
	switch atom.Lookup(name) {
	case atom.A:
		s.flush()
	case atom.Script, atom.Style, atom.Template, atom.Textarea:
		if s.skipText > 0 {
			s.skipText--
		}
	}
}

// linkAttrs returns the href and rel of an <a> or <area>; ok is false
// without href.
func linkAttrs(z *html.Tokenizer, more bool) (href, rel string, ok bool) {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "href":
			if !ok {
				href, ok = strings.TrimSpace(string(v)), true
			}
		case "rel":
			rel = string(v)
		}
	}
	return href, rel, ok
}

// metaAttrs returns the name and content attributes of a <meta>.
func metaAttrs(z *html.Tokenizer) (name, content string) {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "name":
			name = string(v)
		case "content":
			content = string(v)
		}
	}
	return name, content
}

// attr returns the value of the attribute key of the current tag.
func attr(z *html.Tokenizer, more bool, key string) string {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == key {
			return string(v)
		}
	}
	return ""
}

// hasToken reports whether the comma- or space-separated list s holds tok,
// ignoring case.
func hasToken(s, tok string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// collapse trims s and replaces each run of white space with one space.
// NUL characters are dropped, as an HTML parser drops them from text.
func collapse(s string) string { return collapseTo(s, MaxAnchorText) }

// collapseTo is collapse with a bound of n bytes instead of MaxAnchorText.
func collapseTo(s string, n int) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "")
	}
	return s
}
