package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxTitle bounds a title, in bytes.
const MaxTitle = 1 << 10

// Title returns the text of a page's first <title>, white space collapsed,
// at most MaxTitle bytes; "" when the page has none before its <body>. It
// decodes body as [Text] does and reads no further than the title.
func Title(body []byte, contentType string) string {
	r, _ := decode(body, contentType)
	z := html.NewTokenizer(r)
	var b strings.Builder
	in := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return collapseTo(b.String(), MaxTitle)
		case html.TextToken:
			if in && b.Len() <= MaxTitle {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Title:
				if tt == html.EndTagToken && in {
					return collapseTo(b.String(), MaxTitle)
				}
				in = tt == html.StartTagToken
			case atom.Body:
				if !in {
					return ""
				}
			}
		}
	}
}
