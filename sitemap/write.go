package sitemap

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Write writes urls as a sitemap file of kind k (a <urlset>, or a
// <sitemapindex> whose entries name sitemap files), with each entry's
// lastmod (RFC 3339, UTC), changefreq and priority when set. Parse reads
// back the same entries. Write does not enforce the limits: a test may
// write a file past them.
func Write(w io.Writer, k Kind, urls []URL) error {
	bw := bufio.NewWriter(w)
	root, entry := "urlset", "url"
	if k == Index {
		root, entry = "sitemapindex", "sitemap"
	}
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<%s xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n", root)
	for _, u := range urls {
		fmt.Fprintf(bw, "<%s><loc>", entry)
		if err := xml.EscapeText(bw, []byte(u.Loc)); err != nil {
			return fmt.Errorf("sitemap: writing: %w", err)
		}
		bw.WriteString("</loc>")
		if !u.LastMod.IsZero() {
			fmt.Fprintf(bw, "<lastmod>%s</lastmod>", u.LastMod.UTC().Format(time.RFC3339Nano))
		}
		if k != Index && u.ChangeFreq != "" {
			fmt.Fprintf(bw, "<changefreq>%s</changefreq>", u.ChangeFreq)
		}
		if k != Index && u.Priority >= 0 {
			fmt.Fprintf(bw, "<priority>%s</priority>", strconv.FormatFloat(u.Priority, 'g', -1, 64))
		}
		fmt.Fprintf(bw, "</%s>\n", entry)
	}
	fmt.Fprintf(bw, "</%s>\n", root)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sitemap: writing: %w", err)
	}
	return nil
}
