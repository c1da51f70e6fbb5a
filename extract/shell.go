package extract

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The thresholds of [LooksLikeShell].
const (
	// ShellMaxText is the most visible text, in characters (whitespace
	// runs count as one), that a page built by its scripts shows before
	// they run.
	ShellMaxText = 200
	// ShellMaxLinks is the most links such a page has before its scripts run.
	ShellMaxLinks = 2
)

// Signs is what [ShellSigns] counts in a page as served.
type Signs struct {
	// Text is the visible text in characters, whitespace runs counted as
	// one; text in <script>, <style>, <noscript>, <template> and <head> is
	// not visible.
	Text int
	// Scripts counts <script> elements, with a src or inline.
	Scripts int
	// Links counts <a href> and <area href>.
	Links int
}

// Shell reports whether the signs are those of an empty shell that
// scripts fill in: at least one script, at most ShellMaxText characters of
// visible text and at most ShellMaxLinks links.
func (s Signs) Shell() bool {
	return s.Scripts > 0 && s.Text <= ShellMaxText && s.Links <= ShellMaxLinks
}

// LooksLikeShell reports whether an HTML page, as served (body and its
// Content-Type), is an empty shell that its scripts fill in, so that
// only a browser sees its text and links: ShellSigns(body,
// contentType).Shell(). For example
//
//	<div id="app"></div><script src="/app.js"></script>  -> true
//	<p>A manual page ... (300 characters)</p><script>...</script>  -> false
//	<h1>Hi</h1>  -> false (no script: nothing would change it)
func LooksLikeShell(body []byte, contentType string) bool {
	return ShellSigns(body, contentType).Shell()
}

// ShellSigns counts the signs [LooksLikeShell] decides on. It stops
// counting text past ShellMaxText+1 characters and links past
// ShellMaxLinks+1, once scripts were seen: the answer cannot change then.
// It never fails: malformed HTML yields what a tokenizer can recover.
func ShellSigns(body []byte, contentType string) Signs {
	var s Signs
	r, _ := decode(body, contentType)
	z := html.NewTokenizer(r)
	z.SetMaxBuf(0)
	hiddenDepth := 0 // inside <script>, <style>, <noscript>, <template>, <head>
	space := true    // the last character counted was whitespace (or none yet)
	for {
		if s.Scripts > 0 && (s.Text > ShellMaxText || s.Links > ShellMaxLinks) {
			return s
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return s
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script:
				s.Scripts++
			case atom.A, atom.Area:
				if attr(z, more, "href") != "" {
					s.Links++
				}
			}
			switch {
			case a == atom.Body:
				hiddenDepth = 0 // a <head> never closed ends here
			case shellHidden(a) && tt == html.StartTagToken:
				hiddenDepth++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if shellHidden(atom.Lookup(name)) && hiddenDepth > 0 {
				hiddenDepth--
			}
		case html.TextToken:
			if hiddenDepth > 0 {
				continue
			}
			for t := z.Text(); len(t) > 0; {
				c, n := utf8.DecodeRune(t)
				t = t[n:]
				if unicode.IsSpace(c) {
					if !space {
						s.Text++
					}
					space = true
					continue
				}
				s.Text++
				space = false
			}
		}
	}
}

// shellHidden reports whether an element's text is not shown before
// scripts run (a <noscript> shows only without them).
func shellHidden(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Title:
		return true
	}
	return false
}
