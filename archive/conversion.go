package archive

import (
	"fmt"
	"strings"

	"github.com/nlnwa/gowarc/v3"
)

// RenderedType is the Content-Type of the conversion record that holds a
// rendered page.
const RenderedType = "text/html; charset=utf-8"

// writeConversion writes c.Rendered as a conversion record: the page as a
// browser built it from the record refersTo (the WARC-Record-ID of the
// response, or of the revisit record that stands for it), with the same
// WARC-Target-URI and WARC-Date, and its CDXJ line (a line of its own at
// the page's URL and time, as warcio's cdx-index writes it).
//
// NB: always in full, never as a revisit record, even when an earlier
// conversion holds the same bytes: WARC 1.1 (6.7) makes a revisit the
// revisitation of a target URI, which replay tools (warcio, pywb) index
// and serve as a capture of that URI, resolving it by URI and date to the
// response. A revisit of a conversion, at the same URI and date as the
// page's own response or revisit, would compete with it in replay and
// point at no record a reader could tell from the response.
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
	off, n, err := w.writeRecord(rec)
	if err != nil {
		return err
	}
	// NB: warcio indexes conversion records, by their Content-Type whole
	// and with no status; so does the index here, to stay warcio's.
	return w.index.add(cdxjLine(c.URL, date, RenderedType, 0, sha1Base32(c.Rendered), n, off, w.name))
}

// conversion reads a conversion record of uri: its block, and the record
// it refers to. One that names none, or whose block is no HTML or runs
// past the reader's body limit, is counted and skipped (nil).
func (r *Reader) conversion(w gowarc.WarcRecord, uri string, start int64) (*Capture, error) {
	refers := strings.TrimSpace(r.field(w, gowarc.WarcRefersTo))
	ct := strings.ToLower(w.WarcHeader().Get(gowarc.ContentType))
	if refers == "" || !strings.HasPrefix(ct, "text/html") {
		r.counts.Skipped[gowarc.Conversion.String()+" (naming no record, or not HTML)"]++
		return nil, nil
	}
	raw, err := w.Block().RawBytes()
	if err != nil {
		return nil, r.fail(start, fmt.Errorf("conversion record of %s: %w", uri, err))
	}
	body, truncated, err := readMax(raw, r.maxBody)
	if err != nil {
		return nil, r.fail(start, fmt.Errorf("conversion record of %s: reading its block: %w", uri, err))
	}
	if truncated {
		r.counts.Skipped[gowarc.Conversion.String()+" (longer than the body limit)"]++
		return nil, nil
	}
	if body == nil {
		body = []byte{}
	}
	return &Capture{URL: uri, Body: body, conversion: true, refersTo: refers}, nil
}

// attachConversion reads the record after capture c: a conversion record
// of c's URL that refers to c's record becomes c.Rendered; any other
// record is kept for the next call of Next, and an error reading it is
// returned by that call.
//
// NB: only the record right after: the Writer puts a capture's conversion
// there, and a reader that looked further would hold records back
// without bound. A conversion elsewhere is counted as skipped.
func (r *Reader) attachConversion(c *Capture) {
	if r.err != nil || c.recordID == "" {
		return
	}
	for r.ahead == nil && r.err == nil {
		next, err := r.next1()
		if err != nil {
			r.err = err
			return
		}
		r.ahead = next
	}
	if a := r.ahead; a != nil && a.conversion && sameID(a.refersTo, c.recordID) && a.URL == c.URL {
		c.Rendered = a.Body
		r.ahead = nil
		r.counts.Conversions++
	}
}

// sameID reports whether two WARC-Record-IDs are the same, with or
// without the angle brackets WARC 1.1 puts around them.
func sameID(a, b string) bool {
	return strings.Trim(strings.TrimSpace(a), "<>") == strings.Trim(strings.TrimSpace(b), "<>")
}
