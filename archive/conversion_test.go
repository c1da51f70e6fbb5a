package archive

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// TestConversionRecord writes a capture with its rendered page: a
// conversion record follows the response, refers to it by its record id,
// and holds the rendered bytes; the reader yields one capture with its
// rendered page, and the index a line for each record.
func TestConversionRecord(t *testing.T) {
	rendered := []byte(`<html><body><a href="/built">built by a script</a></body></html>`)
	c := &Capture{URL: "http://spa.test/", Time: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), Status: 200,
		Header: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"), Body: []byte(`<div id="app"></div>`), Rendered: rendered}
	dir := t.TempDir()
	path, index := writeTestWARC(t, dir, "r.warc.gz", []*Capture{c})
	if len(index) != 2 || !strings.Contains(index[0]+index[1], `"mime":"`+RenderedType+`"`) {
		t.Errorf("index = %q, want the response's line and the conversion's, as warcio indexes them", index)
	}
	f, err := os.Open(filepath.Join(dir, "r.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wf, err := gowarc.NewWarcFileReaderFromStream(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wf.Close()
	var responseID string
	var conversions int
	for {
		r, err := wf.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := r.WarcRecord
		h := rec.WarcHeader()
		switch rec.Type() {
		case gowarc.Response:
			responseID = h.Get(gowarc.WarcRecordID)
		case gowarc.Conversion:
			conversions++
			rd, err := rec.Block().RawBytes()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(rd)
			if !bytes.Equal(got, rendered) {
				t.Errorf("conversion block = %q, want the rendered page %q", got, rendered)
			}
			if ref := h.Get(gowarc.WarcRefersTo); ref == "" || ref != responseID {
				t.Errorf("WARC-Refers-To = %q, want the response's id %q", ref, responseID)
			}
			if h.Get(gowarc.WarcTargetURI) != c.URL || h.Get(gowarc.ContentType) != RenderedType {
				t.Errorf("conversion headers %v, want the page's URI and %s", h, RenderedType)
			}
		}
	}
	if conversions != 1 {
		t.Errorf("%d conversion records, want 1", conversions)
	}
	got, counts, err := readAll(t, path, 0)
	if err != nil || len(got) != 1 || counts.Conversions != 1 || !bytes.Equal(got[0].Rendered, rendered) {
		t.Fatalf("read back %d captures (%v), %d conversions; want 1 with its rendered page", len(got), err, counts.Conversions)
	}
	// With a body limit below the DOM's size, the DOM is not kept cut.
	got, counts, err = readAll(t, path, int64(len(rendered)-1))
	if err != nil || len(got) != 1 || got[0].Rendered != nil || counts.Skipped["conversion (longer than the body limit)"] != 1 {
		t.Errorf("with a body limit: read back %d captures (%v), skipped %v; want 1 without its rendered page", len(got), err, counts.Skipped)
	}
}
