package archive

import (
	"fmt"

	"github.com/nlnwa/gowarc/v3"
)

// RenderedType is the Content-Type of the conversion record that holds a
// rendered page.
const RenderedType = "text/html; charset=utf-8"

// writeConversion writes c.Rendered as a conversion record: the page as a
// browser built it from the response record refersTo (its WARC-Record-ID),
// with the same WARC-Target-URI and WARC-Date. It has no CDXJ line: a
// replay shows the response, as the crawl fetched it.
func (w *Writer) writeConversion(c *Capture, refersTo, date string) error {
	rb := newBuilder(gowarc.Conversion, len(c.Rendered))
	rb.AddWarcHeader(gowarc.WarcTargetURI, c.URL)
	rb.AddWarcHeader(gowarc.WarcDate, date)
	rb.AddWarcHeader(gowarc.WarcWarcinfoID, w.infoID)
	rb.AddWarcHeader(gowarc.WarcRefersTo, refersTo)
	rb.AddWarcHeader(gowarc.ContentType, RenderedType)
	rb.AddWarcHeader(gowarc.WarcBlockDigest, "sha1:"+sha1Base32(c.Rendered))
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, "sha1:"+sha1Base32(c.Rendered))
	rb.Write(c.Rendered)
	rec, _, err := rb.Build()
	if err != nil {
		return fmt.Errorf("archive: building the conversion record of %s: %w", c.URL, err)
	}
	if _, _, err := w.writeRecord(rec); err != nil {
		return err
	}
	return nil
}
