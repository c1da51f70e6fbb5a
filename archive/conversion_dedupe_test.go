package archive

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// TestConversionAfterRevisit: with Dedupe, a rendered capture whose
// payload was written already becomes a revisit record followed by its
// own conversion record, in full (even when an earlier conversion holds
// the same DOM), referring to the revisit; a Reader gives each capture
// back its rendered page, revisits included, and skips nothing.
func TestConversionAfterRevisit(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	shell := []byte(`<div id="app"></div><script src="/app.js"></script>`)
	caps := []Capture{
		{URL: "http://spa.test/1", Body: shell, Rendered: []byte(`<a href="/2">one</a>`)},
		{URL: "http://spa.test/2", Body: shell, Rendered: []byte(`<a href="/3">two</a>`)},
		{URL: "http://spa.test/3", Body: shell, Rendered: []byte(`<a href="/3">two</a>`)}, // the DOM of /2 again
		{URL: "http://spa.test/4", Body: shell},                                           // not rendered
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "c.warc.gz", "test")
	if err != nil {
		t.Fatal(err)
	}
	w.Dedupe()
	for i := range caps {
		c := &caps[i]
		c.Time, c.Status, c.Header = t0.Add(time.Duration(i)*time.Second), 200, hdr
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if w.Revisits() != 3 {
		t.Fatalf("Revisits() = %d, want 3", w.Revisits())
	}
	checkConversionRecords(t, buf.Bytes(), caps)

	r, err := NewReader("c.warc.gz", bytes.NewReader(buf.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	r.Revisits = true
	for i, want := range caps {
		c, err := r.Next()
		if err != nil {
			t.Fatalf("capture %d: %v", i, err)
		}
		if c.URL != want.URL || c.Revisit != (i > 0) || !bytes.Equal(c.Rendered, want.Rendered) || (want.Rendered == nil) != (c.Rendered == nil) {
			t.Errorf("capture %d read = %s revisit %v rendered %q, want %s revisit %v rendered %q", i, c.URL, c.Revisit, c.Rendered, want.URL, i > 0, want.Rendered)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the captures: %v, want io.EOF", err)
	}
	if n := r.Counts().Conversions; n != 3 || len(r.Counts().Skipped) != 1 {
		t.Errorf("read back %d conversions, skipped %v; want 3 and the warcinfo only", n, r.Counts().Skipped)
	}
}

// checkConversionRecords reads the WARC with the WARC library: after the
// record of each rendered capture, its conversion, holding the DOM and
// referring to that record by its id.
func checkConversionRecords(t *testing.T, warc []byte, caps []Capture) {
	t.Helper()
	wf, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(warc), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wf.Close()
	var prevID, prevURI string
	var doms [][]byte
	for {
		r, err := wf.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec, h := r.WarcRecord, r.WarcRecord.WarcHeader()
		if rec.Type() != gowarc.Conversion {
			prevID, prevURI = h.Get(gowarc.WarcRecordID), h.Get(gowarc.WarcTargetURI)
			continue
		}
		if ref := h.Get(gowarc.WarcRefersTo); ref != prevID || h.Get(gowarc.WarcTargetURI) != prevURI {
			t.Errorf("conversion of %s refers to %q, want the record before it, %q of %s", h.Get(gowarc.WarcTargetURI), ref, prevID, prevURI)
		}
		rd, err := rec.Block().RawBytes()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rd)
		doms = append(doms, b)
	}
	var want [][]byte
	for _, c := range caps {
		if c.Rendered != nil {
			want = append(want, c.Rendered)
		}
	}
	if len(doms) != len(want) {
		t.Fatalf("%d conversion records, want %d: one per rendered capture, revisits included", len(doms), len(want))
	}
	for i := range want {
		if !bytes.Equal(doms[i], want[i]) {
			t.Errorf("conversion %d holds %q, want %q", i, doms[i], want[i])
		}
	}
}
