package urlkey

import "net/url"

// LinkBase is the URL that a page's relative links are read against: the
// page's own URL, or its <base href> (baseHref, "" for none) read against
// it when that is an http or https URL.
func LinkBase(page *url.URL, baseHref string) *url.URL {
	if baseHref == "" {
		return page
	}
	if b, err := page.Parse(baseHref); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
		return b
	}
	return page
}

// Resolve returns the canonical URL (see Canonical) of the link href read
// against base (see LinkBase), and false when it is not an http or https
// URL or cannot be made canonical.
//
//	base http://www.cnn.com/a/b, href ../c#top -> http://www.cnn.com/c
//	base http://www.cnn.com/,    href mailto:x -> false
func Resolve(base *url.URL, href string) (*url.URL, bool) {
	ref, err := base.Parse(href)
	if err != nil || (ref.Scheme != "http" && ref.Scheme != "https") {
		return nil, false
	}
	cu, err := Canonical(ref.String())
	if err != nil {
		return nil, false
	}
	return cu, true
}
