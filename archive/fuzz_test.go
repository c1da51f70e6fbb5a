package archive

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzRead: whatever the bytes, reading a WARC ends at io.EOF or with an
// error naming the stream, never a panic, and every capture has a URL.
func FuzzRead(f *testing.F) {
	f.Add([]byte(rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>")))
	f.Add([]byte(gz(rawRecord("1.0", "response", "<http://a.test/>", "2026-01-02T03:04:05Z", "application/http;msgtype=response",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n"))
	f.Add([]byte(rawRecord("1.1", "revisit", "http://a.test/2", "2026-01-02T03:04:06Z", "application/http;msgtype=response", "HTTP/1.1 200 OK\r\n\r\n",
		"WARC-Profile: "+ProfileIdenticalPayload, "WARC-Refers-To-Target-URI: http://a.test/1", "WARC-Refers-To-Date: 2026-01-02T03:04:05Z")))
	// A capture and its conversion record (its id: from the lengths of
	// the block and the URI, see rawRecord).
	f.Add([]byte(rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>") +
		rawRecord("1.1", "conversion", "http://a.test/1", "2026-01-02T03:04:05Z", RenderedType, `<p>one <a href="/2">two</a></p>`,
			"WARC-Refers-To: <urn:uuid:00000025-0000-0000-0000-000000000000>")))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader("fuzz.warc", bytes.NewReader(data), 1<<16)
		if r != nil {
			r.Revisits = len(data)%2 == 0 // both ways
		}
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("NewReader: %v, want an *archive.Error", err)
			}
			return
		}
		defer r.Close()
		for range 100 {
			c, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var ae *Error
				if !errors.As(err, &ae) || ae.File != "fuzz.warc" {
					t.Fatalf("Next: %v, want an *archive.Error naming fuzz.warc", err)
				}
				return
			}
			if c.Revisit && (c.RefersTo == "" || c.Body != nil) {
				t.Fatalf("revisit %+v: names no record, or has a body", c)
			}
			if c.URL == "" || len(c.Body) > 1<<16 || len(c.Rendered) > 1<<16 || c.conversion {
				t.Fatalf("capture %+v: no URL, a body or rendered page over the limit, or a conversion record", c)
			}
		}
	})
}
