package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSURT(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://www.cnn.com/", "com,cnn)/"},
		{"http://www.cnn.com", "com,cnn)/"},
		{"https://www2.Example.ORG/A/b.html", "org,example)/a/b.html"},
		{"https://WWW.example.org/", "org,example,www)/"}, // warcio strips www. before lower-casing
		{"http://cnn.com:8080/a?b=1&a=2", "com,cnn:8080)/a?a=2&b=1"},
		{"https://maps.google.com:443/x", "com,google,maps)/x"},
		{"http://my.look.ca/cgi-bin/search", "ca,look,my)/cgi-bin/search"},
		{"metadata://gnu.org/software/wget/", "metadata://gnu.org/software/wget/"},
	} {
		if got := SURT(tc.in); got != tc.want {
			t.Errorf("SURT(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)

func testCaptures() []*Capture {
	return []*Capture{
		{URL: "http://www.cnn.com/", Time: t0, Status: 200,
			Header: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\n\r\n"),
			Body:   []byte("<a href=/x>X</a>")},
		{URL: "http://www.cnn.com/", Time: t0.Add(300 * time.Millisecond), Status: 200,
			Header: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"),
			Body:   []byte("<p>second</p>"), Truncated: true},
		{URL: "http://cnnsi.com/old", Time: t0.Add(time.Second), MIME: "text/html", Body: []byte("<p>no header kept</p>")},
		{URL: "https://www.cnn.com/h2", Time: t0.Add(2 * time.Second), Status: 200,
			Header: []byte("HTTP/2.0 200 OK\r\nContent-Type: text/html\r\n\r\n"), Body: []byte("<p>over h2</p>")},
	}
}

// writeTestWARC writes caps to dir/name and returns its path and index.
func writeTestWARC(t *testing.T, dir, name string, caps []*Capture) (string, []string) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, name, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caps {
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var idx strings.Builder
	if err := w.WriteIndex(&idx); err != nil {
		t.Fatal(err)
	}
	return path, strings.SplitAfter(strings.TrimSuffix(idx.String(), "\n"), "\n")
}

// readAll reads every capture of path; err is what stopped it (nil at EOF).
func readAll(t *testing.T, path string, maxBody int64) ([]*Capture, Counts, error) {
	t.Helper()
	r, err := Open(path, maxBody)
	if err != nil {
		return nil, Counts{}, err
	}
	defer r.Close()
	var out []*Capture
	for {
		c, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Counts(), nil
		}
		if err != nil {
			return out, r.Counts(), err
		}
		out = append(out, c)
	}
}

func TestWriteThenRead(t *testing.T) {
	caps := testCaptures()
	path, index := writeTestWARC(t, t.TempDir(), "t.warc.gz", caps)
	got, counts, err := readAll(t, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(caps) {
		t.Fatalf("read %d captures, want %d", len(got), len(caps))
	}
	for i, c := range got {
		w := caps[i]
		if c.URL != w.URL || !c.Time.Equal(w.Time) || !bytes.Equal(c.Body, w.Body) {
			t.Errorf("capture %d = %s %s %q, want %s %s %q", i, c.URL, c.Time, c.Body, w.URL, w.Time, w.Body)
		}
	}
	if got[0].Status != 200 || got[2].Status != 200 {
		t.Errorf("statuses %d, %d; want 200 for a response and for a resource", got[0].Status, got[2].Status)
	}
	// The header is made consistent with the decoded body.
	h := string(got[0].Header)
	if strings.Contains(h, "Content-Encoding") || !strings.Contains(h, "Content-Length: 16\r\n") {
		t.Errorf("exported header %q still names the encoding or the old length", h)
	}
	if strings.Contains(string(got[1].Header), "Transfer-Encoding") {
		t.Errorf("exported header %q still names chunking", got[1].Header)
	}
	if !strings.HasPrefix(string(got[3].Header), "HTTP/1.1 200 OK\r\n") {
		t.Errorf("an HTTP/2 response was written as %q, want an HTTP/1.1 status line", got[3].Header)
	}
	if counts.Skipped["warcinfo"] != 1 || counts.Captures != 4 {
		t.Errorf("counts = %+v, want 4 captures and 1 warcinfo skipped", counts)
	}
	if len(index) != 4 {
		t.Fatalf("index has %d lines, want 4", len(index))
	}
	for i := 1; i < len(index); i++ {
		if index[i-1] > index[i] {
			t.Errorf("index not sorted: %q before %q", index[i-1], index[i])
		}
	}
	if want := `com,cnn)/ 20260102030405 {"url":"http://www.cnn.com/","mime":"text/html","status":"200","digest":"`; !strings.HasPrefix(index[0], want) {
		t.Errorf("index[0] = %q, want prefix %q", index[0], want)
	}
	if !strings.Contains(index[3], `"mime":"text/html","digest"`) {
		t.Errorf("a resource's line %q should have its mime and no status", index[3])
	}
}

func TestWARCDateMilliseconds(t *testing.T) {
	path, _ := writeTestWARC(t, t.TempDir(), "t.warc.gz", testCaptures())
	raw := gunzipAll(t, path)
	if !strings.Contains(raw, "WARC-Date: 2026-01-02T03:04:05.678Z\r\n") || !strings.Contains(raw, "WARC-Date: 2026-01-02T03:04:05.978Z\r\n") {
		t.Errorf("WARC-Date fields lack milliseconds:\n%s", raw)
	}
	if !strings.Contains(raw, "WARC-Truncated: length\r\n") {
		t.Errorf("the truncated capture has no WARC-Truncated: length")
	}
	if n := strings.Count(raw, "WARC-Type: resource\r\n"); n != 1 {
		t.Errorf("%d resource records, want 1 (the capture without headers)", n)
	}
}

func gunzipAll(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rawRecord is a WARC record written by hand, as other tools write them.
func rawRecord(version, typ, uri, date, contentType, block string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "WARC/%s\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\n", version, typ, len(block)+len(uri))
	if uri != "" {
		fmt.Fprintf(&b, "WARC-Target-URI: %s\r\n", uri)
	}
	fmt.Fprintf(&b, "WARC-Date: %s\r\n", date)
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	if contentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", contentType)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s\r\n\r\n", len(block), block)
	return b.String()
}

func gz(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func TestReadOtherTools(t *testing.T) {
	var gzBody bytes.Buffer
	zw := gzip.NewWriter(&gzBody)
	zw.Write([]byte("<p>decoded</p>"))
	zw.Close()
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", gzBody.Len(), gzBody.String())
	const http = "application/http;msgtype=response"
	file := rawRecord("1.0", "warcinfo", "", "2026-01-02T03:04:05Z", "application/warc-fields", "software: Wget/1.21\r\n") +
		rawRecord("1.0", "request", "<http://a.test/>", "2026-01-02T03:04:05Z", "application/http;msgtype=request", "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n") +
		rawRecord("1.0", "response", "<http://a.test/>", "2026-01-02T03:04:05Z", http,
			"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"+chunked) +
		rawRecord("1.0", "revisit", "http://a.test/", "2026-01-02T03:04:06Z", http, "HTTP/1.1 200 OK\r\n\r\n",
			"WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest") +
		rawRecord("1.0", "metadata", "http://a.test/", "2026-01-02T03:04:05Z", "application/warc-fields", "outlinks: x\r\n") +
		rawRecord("1.0", "resource", "metadata://gnu.org/software/wget/warc/wget.log", "2026-01-02T03:04:07Z", "text/plain", "log") +
		rawRecord("1.0", "response", "dns:a.test", "2026-01-02T03:04:07Z", "text/dns", "20260102030407\na.test. 300 IN A 127.0.0.1\n") +
		rawRecord("1.1", "resource", "https://a.test/r.html", "2026-01-02T03:04:08.5Z", "text/html", "<p>resource</p>")
	dir := t.TempDir()
	for _, tc := range []struct{ name, data string }{{"plain.warc", file}, {"members.warc.gz", gzipPerRecord(file)}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			os.WriteFile(path, []byte(tc.data), 0o644)
			got, counts, err := readAll(t, path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("read %d captures, want 2 (the response and the http resource)", len(got))
			}
			if string(got[0].Body) != "<p>decoded</p>" || got[0].URL != "http://a.test/" || !got[0].Time.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
				t.Errorf("response = %s %s %q, want http://a.test/ at 03:04:05 with the body de-chunked and gunzipped", got[0].URL, got[0].Time, got[0].Body)
			}
			if string(got[1].Body) != "<p>resource</p>" || got[1].ContentType != "text/html" || got[1].Time.Nanosecond() != 500_000_000 {
				t.Errorf("resource = %q %q %s", got[1].Body, got[1].ContentType, got[1].Time)
			}
			want := map[string]int{"warcinfo": 1, "request": 1, "metadata": 1, "resource (not http)": 1, "response (not http)": 1}
			if fmt.Sprint(counts.Skipped) != fmt.Sprint(want) || counts.Revisits != 1 {
				t.Errorf("counts = %+v, want skipped %v and 1 revisit", counts, want)
			}
		})
	}
}

// gzipPerRecord compresses each record of a plain WARC as its own member.
func gzipPerRecord(file string) string {
	var out strings.Builder
	for _, rec := range strings.SplitAfter(file, "\r\n\r\nWARC/") {
		_ = rec
	}
	parts := strings.Split(file, "WARC/1.")
	for _, p := range parts[1:] {
		out.WriteString(gz("WARC/1." + p))
	}
	return out.String()
}

func TestMaxBody(t *testing.T) {
	caps := []*Capture{{URL: "http://a.test/", Time: t0, Status: 200, Header: []byte("HTTP/1.1 200 OK\r\n\r\n"), Body: bytes.Repeat([]byte("x"), 1000)}}
	path, _ := writeTestWARC(t, t.TempDir(), "t.warc.gz", caps)
	got, _, err := readAll(t, path, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0].Body) != 100 || !got[0].Truncated {
		t.Errorf("body of %d bytes, truncated %v; want 100 and true", len(got[0].Body), got[0].Truncated)
	}
}

// TestBadInput: a damaged file gives one error naming the file and the
// offset of the damaged record, after every good record before it.
func TestBadInput(t *testing.T) {
	good := rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>")
	second := rawRecord("1.1", "resource", "http://a.test/2", "2026-01-02T03:04:06Z", "text/html", "<p>two</p>")
	lying := strings.Replace(second, "Content-Length: 10", "Content-Length: 99", 1)
	short := strings.Replace(second, "Content-Length: 10", "Content-Length: 4", 1)
	// With a block digest (of the real block), a short Content-Length is
	// caught in a gzip member too.
	shortDigest := strings.Replace(short, "Content-Length: 4", "WARC-Block-Digest: sha1:"+sha1Base32([]byte("<p>two</p>"))+"\r\nContent-Length: 4", 1)
	g1 := gz(good)
	g2 := gz(second)
	for _, tc := range []struct {
		name, data string
		goodBefore int
		offset     int
		want       string
	}{
		{"truncated gzip member", g1 + g2[:len(g2)-10], 1, len(g1), "cut short"},
		{"gzip member with a Content-Length too long", g1 + gz(lying), 1, len(g1), "Content-Length says 99"},
		{"gzip member with a Content-Length too short", g1 + gz(shortDigest), 1, len(g1), "WARC-Block-Digest"},
		{"plain record with a Content-Length too long", good + lying, 1, len(good), ""},
		// Without a digest the short record reads as a short body; the
		// bytes left over are caught before the next record.
		{"plain record with a Content-Length too short", good + short + good, 2, len(good) + len(short) - 10, "not a WARC record"},
		{"garbage after a record", g1 + "garbage", 1, len(g1), "no WARC record"},
		// The WARC library used to read the first record of such a member
		// and skip the rest silently.
		{"gzip member holding two records", g1 + gz(second+good), 1, len(g1), "holds more than the record"},
		// Blank lines after a record in its member are no damage.
		{"gzip member with blank lines after its record", g1 + gz(second+"\r\n") + "garbage", 2, len(g1) + len(gz(second+"\r\n")), "no WARC record"},
		{"not a WARC file", "<html>hello</html>", 0, 0, "not a WARC file"},
		{"empty file", "", 0, 0, "not a WARC file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.warc.gz")
			os.WriteFile(path, []byte(tc.data), 0o644)
			got, _, err := readAll(t, path, 0)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *archive.Error", err)
			}
			if ae.File != path || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file %s", err, path)
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if tc.name != "plain record with a Content-Length too long" && ae.Offset != int64(tc.offset) {
				t.Errorf("offset %d, want %d (error %v)", ae.Offset, tc.offset, err)
			}
			if len(got) != tc.goodBefore {
				t.Errorf("%d captures before the error, want %d", len(got), tc.goodBefore)
			}
		})
	}
}

// TestOneGzipStream: a WARC gzipped as one stream, not one member per
// record, is refused rather than read as its first record alone.
func TestOneGzipStream(t *testing.T) {
	file := rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>") +
		rawRecord("1.1", "resource", "http://a.test/2", "2026-01-02T03:04:06Z", "text/html", "<p>two</p>")
	path := filepath.Join(t.TempDir(), "one-stream.warc.gz")
	os.WriteFile(path, []byte(gz(file)), 0o644)
	_, _, err := readAll(t, path, 0)
	var ae *Error
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "one gzip stream") {
		t.Errorf("err = %v, want an *archive.Error saying the file is one gzip stream", err)
	}
}

// TestDeclaredTooLarge: a record whose header declares more than
// MaxRecord is refused from its Content-Length, plain or in a gzip
// member, before its block is read (the blocks here are short: reading
// them would give another error). See TestTwoGiBRecord for a real one.
func TestDeclaredTooLarge(t *testing.T) {
	good := rawRecord("1.1", "resource", "http://a.test/1", "2026-01-02T03:04:05Z", "text/html", "<p>one</p>")
	big := strings.Replace(rawRecord("1.1", "resource", "http://a.test/big", "2026-01-02T03:04:06Z", "text/html", strings.Repeat("x", 2<<20)),
		fmt.Sprintf("Content-Length: %d", 2<<20), fmt.Sprintf("Content-Length: %d", MaxRecord+1), 1)
	for _, tc := range []struct {
		name    string
		data    string
		goodLen int
	}{
		{"plain", good + big, len(good)},
		{"gzipped", gz(good) + gz(big), len(gz(good))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readBig(t, struct{ io.Reader }{strings.NewReader(tc.data)}, tc.goodLen, fmt.Sprintf("declares %d bytes", MaxRecord+1))
		})
	}
}

// readBig reads src, whose second record is too large: the first comes
// back, the second is refused at goodLen with an error saying want, and
// $TMPDIR stays empty.
func readBig(t *testing.T, src io.Reader, goodLen int, want string) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r, err := NewReader("generated.warc", src, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := r.Next()
	if err != nil || c.URL != "http://a.test/1" || !bytes.Equal(c.Body, []byte("<p>one</p>")) {
		t.Fatalf("first record: %v, %v; want the good record", c, err)
	}
	_, err = r.Next()
	var ae *Error
	if !errors.As(err, &ae) || ae.File != "generated.warc" || ae.Offset != int64(goodLen) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v; want an *Error at offset %d saying %q", err, goodLen, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("reading the record left %d files in $TMPDIR (%s): its block was spooled before it was refused", len(left), left[0].Name())
	}
	t.Log(err)
}
