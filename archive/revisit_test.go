package archive

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// TestDedupe: with Dedupe, a payload written already becomes a revisit
// record naming the first; a Reader returns it with Revisits set, and
// counts and skips it without.
func TestDedupe(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "d.warc.gz", "test")
	if err != nil {
		t.Fatal(err)
	}
	w.Dedupe()
	for i, c := range []Capture{
		{URL: "http://a.test/1", Body: []byte("same")},
		{URL: "http://a.test/2", Body: []byte("other")},
		{URL: "http://a.test/3", Body: []byte("same")},
	} {
		c.Time, c.Status, c.Header = t0.Add(time.Duration(i)*time.Second), 200, hdr
		if err := w.Write(&c); err != nil {
			t.Fatal(err)
		}
	}
	if w.Revisits() != 1 {
		t.Fatalf("Revisits() = %d, want 1", w.Revisits())
	}
	for _, revisits := range []bool{true, false} {
		r, err := NewReader("d.warc.gz", bytes.NewReader(buf.Bytes()), 0)
		if err != nil {
			t.Fatal(err)
		}
		r.Revisits = revisits
		var got []*Capture
		for {
			c, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c)
		}
		if r.Counts().Revisits != 1 {
			t.Errorf("Revisits %v: counted %d revisits, want 1", revisits, r.Counts().Revisits)
		}
		if !revisits {
			if len(got) != 2 {
				t.Errorf("without Revisits: %d captures, want the 2 responses", len(got))
			}
			continue
		}
		if len(got) != 3 {
			t.Fatalf("with Revisits: %d captures, want 3", len(got))
		}
		rv := got[2]
		if !rv.Revisit || rv.URL != "http://a.test/3" || rv.RefersTo != "http://a.test/1" || !rv.RefersDate.Equal(t0) || rv.Body != nil || rv.Status != 200 {
			t.Errorf("revisit read = %+v, want /3 referring to /1 at %v, status 200, no body", rv, t0)
		}
	}
}
