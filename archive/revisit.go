package archive

import (
	"fmt"
	"strings"

	"github.com/nlnwa/gowarc/v3"
)

// ProfileIdenticalPayload is the WARC-Profile of a revisit record whose
// payload is that of an earlier record (WARC 1.1, section 6.7.2).
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// profile10 is the same profile in WARC 1.0, which tools still write.
const profile10 = "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"

// firstWritten is the record a payload was first written in.
type firstWritten struct {
	uri, date string
}

// Dedupe makes the Writer write a revisit record (profile
// identical-payload-digest, naming the first record's WARC-Target-URI and
// WARC-Date) in place of a capture whose payload it wrote already in this
// file. It remembers one URL and date per distinct payload written.
func (w *Writer) Dedupe() {
	if w.seen == nil {
		w.seen = map[string]firstWritten{}
	}
}

// Revisits is how many revisit records the Writer wrote.
func (w *Writer) Revisits() int { return w.revisits }

// writeRevisit writes c, whose payload (digest payload) was first
// written at first, as a revisit record: the HTTP header of the response
// and no payload (none at all for a resource capture). It returns the
// record's WARC-Record-ID.
func (w *Writer) writeRevisit(c *Capture, first firstWritten, payload, date string) (string, error) {
	var block []byte
	contentType := "application/http; msgtype=response"
	if c.Header != nil {
		hdr, _, err := consistentHeader(c.Header, len(c.Body))
		if err != nil {
			return "", fmt.Errorf("archive: %s at %s: %w", c.URL, date, err)
		}
		block = hdr
	} else {
		contentType = ""
	}
	rec, err := w.buildCapture(gowarc.Revisit, c, date, contentType, block, payload,
		gowarc.WarcProfile, ProfileIdenticalPayload,
		gowarc.WarcRefersToTargetURI, first.uri,
		gowarc.WarcRefersToDate, first.date)
	if err != nil {
		return "", fmt.Errorf("archive: building the revisit record of %s: %w", c.URL, err)
	}
	id := "<" + strings.Trim(rec.RecordId(), "<>") + ">"
	off, n, err := w.writeRecord(rec)
	if err != nil {
		return "", err
	}
	w.revisits++
	status := 0
	if c.Header != nil {
		status = c.Status
	}
	return id, w.index.add(cdxjLine(c.URL, date, "warc/revisit", status, payload, n, off, w.name))
}

// revisit turns a revisit record of uri into a Capture with Revisit set,
// or skips it (nil) when it is not of the identical-payload profile or
// does not name the record it refers to.
func (r *Reader) revisit(w gowarc.WarcRecord, uri string, start int64) (*Capture, error) {
	profile := strings.TrimSpace(r.field(w, gowarc.WarcProfile))
	refers := strings.Trim(strings.TrimSpace(r.field(w, gowarc.WarcRefersToTargetURI)), "<>")
	if profile != ProfileIdenticalPayload && profile != profile10 || refers == "" {
		r.counts.Skipped["revisit (not identical-payload-digest, or naming no record)"]++
		return nil, nil
	}
	date, err := parseDate(r.field(w, gowarc.WarcDate))
	if err != nil {
		r.counts.Skipped[SkippedUndated]++
		return nil, nil
	}
	refDate, err := parseDate(r.field(w, gowarc.WarcRefersToDate))
	if err != nil {
		r.counts.Skipped["revisit whose WARC-Refers-To-Date is no date"]++
		return nil, nil
	}
	c := &Capture{URL: uri, Time: date, Revisit: true, RefersTo: refers, RefersDate: refDate, Status: 200}
	if b, ok := w.Block().(gowarc.HttpResponseBlock); ok {
		c.Status = b.HttpStatusCode()
		c.Header = b.ProtocolHeaderBytes()
		c.ContentType = parseHeader(c.Header).Get("Content-Type")
	}
	return c, nil
}
