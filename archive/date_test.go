package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUndatedRecordSkipped: a capture record whose WARC-Date is no date or
// lies before 1970 is skipped with one report naming the file and its
// offset, and the records after it are read.
func TestUndatedRecordSkipped(t *testing.T) {
	good1 := rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>")
	bad := []string{
		rawRecord("1.1", "resource", "http://a.test/epoch-1", "1969-12-31T23:59:59.999999Z", "text/html", "<p>-1</p>"),
		rawRecord("1.1", "response", "http://a.test/nodate", "yesterday", "application/http;msgtype=response", "HTTP/1.1 200 OK\r\n\r\nx"),
		rawRecord("1.1", "resource", "http://a.test/1960", "1960-01-01T00:00:00Z", "text/html", "<p>1960</p>"),
	}
	good2 := rawRecord("1.1", "resource", "http://a.test/2", "1970-01-01T00:00:00Z", "text/html", "<p>two</p>")
	for _, gzipped := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzipped=%v", gzipped), func(t *testing.T) {
			enc := func(s string) string { return s }
			if gzipped {
				enc = gz
			}
			var file strings.Builder
			file.WriteString(enc(good1))
			var offsets []int64
			for _, b := range bad {
				offsets = append(offsets, int64(file.Len()))
				file.WriteString(enc(b))
			}
			file.WriteString(enc(good2))
			path := filepath.Join(t.TempDir(), "dates.warc")
			if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var skips []*Error
			r.OnSkip = func(e *Error) { skips = append(skips, e) }
			var urls []string
			for {
				c, err := r.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatalf("after %q: %v", urls, err)
					}
					break
				}
				if c.Time.Before(minDate) {
					t.Errorf("capture %s dated %s, before 1970", c.URL, c.Time)
				}
				urls = append(urls, c.URL)
			}
			if want := []string{"http://a.test/1", "http://a.test/2"}; !equal(urls, want) {
				t.Errorf("captures %q, want %q", urls, want)
			}
			if n := r.Counts().Skipped[SkippedUndated]; n != len(bad) {
				t.Errorf("Counts().Skipped[%q] = %d, want %d", SkippedUndated, n, len(bad))
			}
			if len(skips) != len(bad) {
				t.Fatalf("OnSkip called %d times, want %d: %v", len(skips), len(bad), skips)
			}
			for i, e := range skips {
				if e.File != path || e.Offset != offsets[i] || !strings.Contains(e.Error(), path) || !strings.Contains(e.Error(), "cannot be dated") {
					t.Errorf("skip %d: %v (offset %d), want the file, offset %d and the reason", i, e, e.Offset, offsets[i])
				}
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMaxBodyBoundsWork: a body past maxBody is not decoded further. The
// payload is 8 MiB of gzipped zeros whose checksum is wrong: decoding it to
// its end fails, reading one byte past maxBody does not.
func TestMaxBodyBoundsWork(t *testing.T) {
	var payload bytes.Buffer
	zw := gzip.NewWriter(&payload)
	zw.Write(make([]byte, 8<<20))
	zw.Close()
	p := payload.Bytes()
	crc := crc32.ChecksumIEEE(make([]byte, 8<<20))
	p[len(p)-8] ^= byte(crc) | 1 // spoil the CRC-32 of the trailer
	rec := rawRecord("1.1", "response", "http://a.test/bomb", "2026-01-02T03:04:05Z", "application/http;msgtype=response",
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n"+string(p))
	next := rawRecord("1.1", "resource", "http://a.test/after", "2026-01-02T03:04:06Z", "text/html", "<p>after</p>")
	path := filepath.Join(t.TempDir(), "bomb.warc.gz")
	if err := os.WriteFile(path, []byte(gz(rec)+gz(next)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll(t, path, 1<<10)
	if err != nil {
		t.Fatalf("reading a record whose body is cut at 1 KiB: %v (was it decoded to its end?)", err)
	}
	if len(got) != 2 || len(got[0].Body) != 1<<10 || !got[0].Truncated || got[1].URL != "http://a.test/after" {
		t.Fatalf("captures %d, first body %d bytes truncated %v; want 2, 1024 and true", len(got), len(got[0].Body), got[0].Truncated)
	}
}

// TestMemberTailBounded: blank lines after a record in its gzip member are
// read a buffer at a time, and a member holding more than maxMemberTail
// bytes of them is refused rather than decompressed to its end.
func TestMemberTailBounded(t *testing.T) {
	rec := rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>")
	for _, tc := range []struct {
		tail string
		ok   bool
	}{
		{"\r\n", true},
		{strings.Repeat("\r\n", maxMemberTail/2), true},
		{strings.Repeat("\r\n", 1<<20), false},
	} {
		path := filepath.Join(t.TempDir(), "tail.warc.gz")
		// NB: the second member: Open refuses a first member holding more
		// than its record (checkFirstMember).
		if err := os.WriteFile(path, []byte(gz(rec)+gz(rec+tc.tail)+gz(rec)), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := readAll(t, path, 0)
		if tc.ok && (err != nil || len(got) != 3) {
			t.Errorf("%d bytes of blank lines: %d captures, %v; want 3", len(tc.tail), len(got), err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "blank lines")) {
			t.Errorf("%d bytes of blank lines: %d captures, %v; want an error saying so", len(tc.tail), len(got), err)
		}
	}
}

// FuzzWARCDate: a date parseDate accepts is in UTC, from 1970 on, and reads
// back the same from its RFC 3339 form; anything else is errUndated.
func FuzzWARCDate(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999Z",
		"2026-01-02T03:04:05.123456789+02:00", "9999-12-31T23:59:59.999999999Z", "0000-01-01T00:00:00Z", "yesterday", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDate(s)
		if err != nil {
			if !errors.Is(err, errUndated) {
				t.Fatalf("parseDate(%q): %v, want errUndated", s, err)
			}
			return
		}
		if d.Location() != time.UTC || d.Before(minDate) || d.After(maxDate) {
			t.Fatalf("parseDate(%q) = %v: not UTC, or outside 1970 to 9999", s, d)
		}
		if again, err := parseDate(d.Format(time.RFC3339Nano)); err != nil || !again.Equal(d) {
			t.Fatalf("parseDate(%q) = %v, but its RFC 3339 form reads as %v, %v", s, d, again, err)
		}
		if d.UnixMicro() < 0 {
			t.Fatalf("parseDate(%q) = %v: a negative timestamp", s, d)
		}
	})
}
