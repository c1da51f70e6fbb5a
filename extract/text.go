package extract

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"
)

// decode returns a reader of body as UTF-8 and the name of the encoding
// it was decoded from (see the package documentation for how it is chosen).
func decode(body []byte, contentType string) (io.Reader, string) {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	var r io.Reader = bytes.NewReader(body)
	if name != "utf-8" {
		r = transform.NewReader(r, enc.NewDecoder())
	}
	return r, name
}

// Text returns the readable text of an HTML page, as a reader would see it:
// one line per block (heading, paragraph, list item, table row, line
// break...), white space collapsed within a line, no empty lines. Text inside
// <script>, <style>, <template>, <noscript> and <head> (except <title>) is
// left out; the values of form fields are not text. Invalid UTF-8 becomes
// U+FFFD. The result holds at most maxBytes bytes, cut at a line end;
// truncated says whether anything was left out. It never fails.
func Text(body []byte, contentType string, maxBytes int) (text string, truncated bool) {
	r, _ := decode(body, contentType)
	z := html.NewTokenizer(r)
	z.SetMaxBuf(0)
	var (
		out       strings.Builder
		line      strings.Builder
		skip      int // depth inside elements whose text is not shown
		titleSkip int // skip outside the <title> being read
	)
	// end closes the current line; it reports false once the output is full.
	end := func() bool {
		l := collapseTo(line.String(), maxBytes)
		line.Reset()
		if l == "" {
			return true
		}
		if out.Len()+len(l)+1 > maxBytes {
			truncated = true
			return false
		}
		out.WriteString(l)
		out.WriteByte('\n')
		return true
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			end()
			return out.String(), truncated
		case html.TextToken:
			if skip == 0 && line.Len() <= maxBytes {
				line.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case hidden(a):
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case a == atom.Title:
				// The title is a line of its own, though it sits in <head>.
				if tt == html.StartTagToken {
					titleSkip, skip = skip, 0
				} else if tt == html.EndTagToken {
					if !end() {
						return out.String(), true
					}
					skip = titleSkip
				}
			case a == atom.Body && tt == html.StartTagToken:
				// <body> ends an unclosed <head> (and anything hidden in it).
				skip = 0
			case block(a):
				if !end() {
					return out.String(), true
				}
			}
		}
	}
}

// hidden reports elements whose content is not text a reader sees. <head>
// counts, apart from its <title> (see Text).
func hidden(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Head, atom.Textarea, atom.Select, atom.Svg, atom.Math, atom.Iframe, atom.Object:
		return true
	}
	return false
}

// block reports elements that start or end a line of text.
func block(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Br, atom.Dd, atom.Details,
		atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hr, atom.Html, atom.Li,
		atom.Main, atom.Nav, atom.Ol, atom.P, atom.Pre, atom.Section, atom.Summary, atom.Table, atom.Td,
		atom.Th, atom.Tr, atom.Ul, atom.Option, atom.Caption, atom.Tbody, atom.Thead, atom.Tfoot:
		return true
	}
	return false
}
