package crawler

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/webtable/webtable/crawlstore"
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
func PageLinks(body []byte, contentType, pageURL string) (links []crawlstore.Link, charset string, err error) {
	u, err := urlkey.Canonical(pageURL)
	if err != nil {
		return nil, "", fmt.Errorf("crawler: links of %q: %w", pageURL, err)
	}
	ex := extract.Extract(body, contentType)
	links, _, _ = resolveLinks(u, ex, DefaultMaxLinks, nil)
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
