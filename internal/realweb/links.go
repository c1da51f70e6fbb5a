package realweb

import (
	"bytes"
	"html"
	"strings"
)

// pageLinks is what the oracle follows on an HTML page, read as package
// extract reads it: the first href of each <a> and <area> without
// rel=nofollow, the first <base href>, and whether <meta name=robots>
// says nofollow (or none), in which case nothing is followed.
type pageLinks struct {
	hrefs        []string
	base         string
	metaNoFollow bool
}

// rawText are the elements whose content holds no tags.
var rawText = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "noscript": true, "plaintext": true,
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true,
}

// scanLinks reads the links of an HTML page. It is a scanner, not a
// tokenizer: the oracle reads every page of a manual (70 MB of HTML), and
// under the race detector x/net/html's tokenizer makes that a minute. It
// looks at the names of tags only, reads the attributes of <a>, <area>,
// <base> and <meta>, and skips comments and the text of raw-text elements
// (script, style, title...). NB: a '<' inside an attribute value of
// another tag would be read as a tag; the test checks scanLinks against
// the tokenizer on the manuals' pages.
func scanLinks(b []byte) pageLinks {
	var pl pageLinks
	var buf [10]byte
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			break
		}
		i += j + 1
		if bytes.HasPrefix(b[i:], []byte("!--")) {
			k := bytes.Index(b[i+3:], []byte("-->"))
			if k < 0 {
				break
			}
			i += 3 + k + 3
			continue
		}
		if i >= len(b) || !isLetter(b[i]) {
			continue // an end tag, a doctype, a lone '<'
		}
		n := i
		for n < len(b) && !isSpace(b[n]) && b[n] != '/' && b[n] != '>' {
			n++
		}
		if n-i > len(buf) {
			i = n
			continue // no tag of interest has so long a name
		}
		name := buf[:n-i]
		for k := range name {
			name[k] = b[i+k] | 0x20 // NB: letters only matter; others never match
		}
		switch string(name) {
		case "a", "area":
			attrs, end := scanAttrs(b, n)
			href, ok := attrs.get("href")
			rel, _ := attrs.get("rel")
			if ok && !hasWord(rel, "nofollow") {
				pl.hrefs = append(pl.hrefs, strings.TrimSpace(href))
			}
			i = end
		case "base":
			attrs, end := scanAttrs(b, n)
			if href, ok := attrs.get("href"); ok && pl.base == "" {
				pl.base = strings.TrimSpace(href)
			}
			i = end
		case "meta":
			attrs, end := scanAttrs(b, n)
			if n, _ := attrs.get("name"); strings.EqualFold(n, "robots") {
				c, _ := attrs.get("content")
				if hasWord(c, "nofollow") || hasWord(c, "none") {
					pl.metaNoFollow = true
				}
			}
			i = end
		default:
			i = n
			if rawText[string(name)] {
				// NB: even when written self-closing, as the tokenizer
				// reads it.
				k := indexFold(b[i:], "</"+string(name))
				if k < 0 {
					return pl
				}
				i += k
			}
		}
	}
	return pl
}

type attrList []string // name, value, name, value...

// get returns the first value of attribute name.
func (a attrList) get(name string) (string, bool) {
	for i := 0; i+1 < len(a); i += 2 {
		if a[i] == name {
			return a[i+1], true
		}
	}
	return "", false
}

// scanAttrs reads the attributes of a tag from b[i:] up to its '>', as the
// HTML tokenizer does, and returns them with the index after the '>'.
func scanAttrs(b []byte, i int) (attrList, int) {
	var out attrList
	for i < len(b) {
		for i < len(b) && (isSpace(b[i]) || b[i] == '/') {
			i++
		}
		if i >= len(b) {
			break
		}
		if b[i] == '>' {
			return out, i + 1
		}
		k := i
		i++ // an attribute name may start with '='
		for i < len(b) && !isSpace(b[i]) && b[i] != '/' && b[i] != '>' && b[i] != '=' {
			i++
		}
		name := strings.ToLower(string(b[k:i]))
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) || b[i] != '=' {
			out = append(out, name, "")
			continue
		}
		i++
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		var v []byte
		if i < len(b) && (b[i] == '"' || b[i] == '\'') {
			q := b[i]
			e := bytes.IndexByte(b[i+1:], q)
			if e < 0 {
				return out, len(b)
			}
			v = b[i+1 : i+1+e]
			i += e + 2
		} else {
			k := i
			for i < len(b) && !isSpace(b[i]) && b[i] != '>' {
				i++
			}
			v = b[k:i]
		}
		out = append(out, name, unescapeAttr(v))
	}
	return out, len(b)
}

// unescapeAttr decodes the character references of an attribute value,
// leaving alone one not ended by ';' that is followed by '=' or a letter or
// digit (as HTML does, so href="?a=1&lang=en" keeps its &lang).
func unescapeAttr(v []byte) string {
	if bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	var sb strings.Builder
	for len(v) > 0 {
		j := bytes.IndexByte(v, '&')
		if j < 0 {
			sb.Write(v)
			break
		}
		sb.Write(v[:j])
		v = v[j:]
		k := 1
		for k < len(v) && k < 40 && (isLetter(v[k]) || isDigit(v[k]) || (k == 1 && v[k] == '#')) {
			k++
		}
		if k < len(v) && v[k] == ';' {
			// NB: "&notit;" is no reference, though it starts with the
			// legacy "&not": only a whole name counts here.
			ref := string(v[:k+1])
			if d := html.UnescapeString(ref); d != ref && (!strings.HasSuffix(d, ";") || ref == "&semi;") {
				sb.WriteString(d)
				v = v[k+1:]
				continue
			}
		}
		// Without ';': a legacy reference (&copy, &amp) counts only when
		// the whole name is one and no '=' follows. Decoded characters are
		// never ASCII letters or digits, so any such tail of the decoded
		// text is name left over.
		ref := string(v[:k])
		d := html.UnescapeString(ref)
		tail := 0
		for tail < len(d) && (isLetter(d[len(d)-1-tail]) || isDigit(d[len(d)-1-tail])) {
			tail++
		}
		if d == ref || tail > 0 || (k < len(v) && v[k] == '=') {
			sb.WriteString(ref)
		} else {
			sb.WriteString(d)
		}
		v = v[k:]
	}
	return sb.String()
}

func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// hasWord reports whether the space-separated list s holds w, ignoring
// case.
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if strings.EqualFold(f, w) {
			return true
		}
	}
	return false
}

// indexFold returns the index of the first s in b, ASCII case ignored, or
// -1.
func indexFold(b []byte, s string) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return -1
		}
		i += j
		if len(b)-i >= len(s) && bytes.EqualFold(b[i:i+len(s)], []byte(s)) {
			return i
		}
		i++
	}
}
