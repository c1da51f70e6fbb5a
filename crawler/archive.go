package crawler

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
)

// PageLinks returns the links of an HTML page fetched from pageURL, exactly
// as the crawler finds them for Page.Links (resolved against <base>,
// canonical, one per target, traps and links to the page itself left out),
// and the charset its bytes were decoded with. contentType is the
// response's Content-Type ("" if none). It is how pages that were not
// fetched by the crawler, such as the captures of a WARC file, get their
// anchors.
func PageLinks(body []byte, contentType, pageURL string) (links []Link, charset string, err error) {
	u, err := urlkey.Canonical(pageURL)
	if err != nil {
		return nil, "", fmt.Errorf("crawler: links of %q: %w", pageURL, err)
	}
	ex := extract.Extract(body, contentType)
	links = resolveLinks(u, ex)
	return links, ex.Charset, nil
}

// MediaType is the media type the crawler gives a response with this
// Content-Type header and body (see Page.MediaType): the header's type
// without parameters, lower case, or the type sniffed from the body when
// the header has none or says "unknown".
func MediaType(contentType string, body []byte) string {
	mt, _ := parseContentType(contentType)
	if sniffed(mt) && len(body) > 0 {
		mt, _, _ = strings.Cut(http.DetectContentType(body), ";")
	}
	return mt
}

// parseContentType splits a Content-Type header into its media type and
// charset, both lower case; a header that does not parse still gives the
// part before its first ";".
func parseContentType(ct string) (mediaType, charset string) {
	if mt, params, err := mime.ParseMediaType(ct); err == nil {
		return strings.ToLower(mt), strings.ToLower(params["charset"])
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt)), ""
}

// resolveLinks resolves and canonicalises the raw links of the page at
// final, one per distinct target, as run.links does for Page.Links.
// NB: a copy of the first half of run.links, made when issue 12 reworked
// that function at the last minute; the two should become one function.
func resolveLinks(final *url.URL, ex extract.Links) []Link {
	base := final
	if ex.Base != "" {
		if b, err := final.Parse(ex.Base); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
			base = b
		}
	}
	self := frontierKey(final)
	index := make(map[string]int, len(ex.Links))
	var links []Link
	for _, l := range ex.Links {
		if l.Href == "" || len(l.Href) > 4*MaxURLLength {
			continue
		}
		ref, err := base.Parse(l.Href)
		if err != nil || (ref.Scheme != "http" && ref.Scheme != "https") {
			continue
		}
		cu, err := urlkey.Canonical(ref.String())
		if err != nil {
			continue
		}
		s := cu.String()
		if isTrap(cu, s) {
			continue
		}
		key := frontierKey(cu)
		if key == self {
			continue
		}
		nofollow := l.NoFollow || ex.MetaNoFollow
		if i, ok := index[key]; ok {
			if i < 0 {
				continue
			}
			if links[i].Text == "" {
				links[i].Text = l.Text
			}
			links[i].NoFollow = links[i].NoFollow && nofollow
			continue
		}
		if len(links) >= DefaultMaxLinks {
			index[key] = -1
			continue
		}
		index[key] = len(links)
		links = append(links, Link{URL: s, Text: l.Text, NoFollow: nofollow})
	}
	return links
}

// IsHTML reports whether a response of this media type (without
// parameters, lower case) is an HTML page whose links the crawler follows.
func IsHTML(mediaType string) bool { return isHTML(mediaType) }

// wireHeader is the status line and header of resp in HTTP/1.1 wire form,
// ending with the empty line, with the Content-Encoding (encoding) and
// Transfer-Encoding that net/http and the transport took out of it put
// back, as received.
func wireHeader(resp *http.Response, encoding string) []byte {
	var b bytes.Buffer
	proto := resp.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	status := resp.Status
	if status == "" || !strings.HasPrefix(status, fmt.Sprint(resp.StatusCode)) {
		status = fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	fmt.Fprintf(&b, "%s %s\r\n", proto, status)
	h := resp.Header
	if encoding != "" || len(resp.TransferEncoding) > 0 {
		h = h.Clone()
		if encoding != "" {
			h.Set("Content-Encoding", encoding)
		}
		if len(resp.TransferEncoding) > 0 {
			h["Transfer-Encoding"] = []string{strings.Join(resp.TransferEncoding, ", ")}
		}
	}
	h.Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}
