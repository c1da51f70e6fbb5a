package webtable

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/urlkey"
)

// TestOldFormContents: a version stored before its facts were packed into
// contents:meta (contents:status, url, headers and truncated each a cell),
// migrated, reads as it was written beside a version stored now, through
// Versions and Captures; the new version is three cells, and so is the
// migrated one.
func TestOldFormContents(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	const url = "http://www.cnn.com/"
	body := []byte("<p>old")
	m := bigtable.NewMutation()
	ts := timestamp(t0)
	for q, v := range map[string]string{colHTML: string(body), colSHA256: sha256Hex(body), colStatus: "203",
		colFetched: url, colHeaders: "HTTP/1.1 203 Non-Authoritative\r\n\r\n", colTruncated: "true"} {
		m.Set(FamilyContents, q, ts, []byte(v))
	}
	if err := w.tbl.Apply(ctx, "com.cnn.www/", m); err != nil {
		t.Fatal(err)
	}
	asOriginal(t, w)
	migrateAll(t, w)
	p := htmlPage(url, t0.Add(time.Hour), "<p>new")
	p.Headers = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	if _, err := w.RecordFetch(ctx, p); err != nil {
		t.Fatal(err)
	}
	vs, err := w.Versions(ctx, "com.cnn.www/")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Status != 200 || vs[1].Status != 203 || vs[1].SHA256 != sha256Hex(body) {
		t.Errorf("Versions = %+v, want the new one (200) and the old one (203)", vs)
	}
	var caps []Capture
	err = w.Captures(ctx, []urlkey.Range{{Start: "com.cnn.www/", End: "com.cnn.www/\x00"}}, Selection{All: true}, func(c *Capture) error {
		caps = append(caps, *c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Capture{
		{Row: "com.cnn.www/", URL: url, Time: t0, Status: 203, Header: []byte("HTTP/1.1 203 Non-Authoritative\r\n\r\n"), MIME: "text/html", Body: body, Truncated: true},
		{Row: "com.cnn.www/", URL: url, Time: t0.Add(time.Hour), Status: 200, Header: p.Headers, MIME: "text/html", Body: p.Body},
	}
	if diff := cmp.Diff(want, caps); diff != "" {
		t.Errorf("Captures (-want +got):\n%s", diff)
	}
	row, err := w.Get(ctx, "com.cnn.www/", Query{Family: FamilyContents, At: TimestampOf(p.Fetch.Time)})
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range row.Cells {
		if c.Timestamp == TimestampOf(p.Fetch.Time) {
			cols = append(cols, c.Qualifier)
		}
	}
	if diff := cmp.Diff([]string{"html", "meta", "sha256"}, cols); diff != "" {
		t.Errorf("a new version's contents cells (-want +got):\n%s", diff)
	}
	row, err = w.Get(ctx, "com.cnn.www/", Query{Family: FamilyContents, At: TimestampOf(t0)})
	if err != nil {
		t.Fatal(err)
	}
	cols = nil
	for _, c := range row.Cells {
		cols = append(cols, c.Qualifier)
	}
	if diff := cmp.Diff([]string{"html", "meta", "sha256"}, cols); diff != "" {
		t.Errorf("the migrated version's contents cells (-want +got):\n%s", diff)
	}
}

func TestCorruptMetaIsAClearError(t *testing.T) {
	ctx := context.Background()
	for _, v := range []string{"200 http://www.cnn.com/", "two hundred http://www.cnn.com/\n", "200\n"} {
		w, _ := openTemp(t)
		m := bigtable.NewMutation()
		m.Set(FamilyContents, colHTML, timestamp(t0), []byte("<p>"))
		m.Set(FamilyContents, colMeta, timestamp(t0), []byte(v))
		if err := w.tbl.Apply(ctx, "com.cnn.www/", m); err != nil {
			t.Fatal(err)
		}
		_, err := w.Versions(ctx, "com.cnn.www/")
		cerr := w.Captures(ctx, nil, Selection{All: true}, func(*Capture) error { return nil })
		for _, err := range []error{err, cerr} {
			if err == nil || !strings.Contains(err.Error(), `"com.cnn.www/"`) || !strings.Contains(err.Error(), "contents:meta") {
				t.Errorf("reading contents:meta %q = %v, want an error naming the row and column", v, err)
			}
		}
	}
}

// FuzzMeta: any bytes decode without a panic, and a value that decodes
// encodes back to the same bytes; a version's facts encode to a value
// that decodes to them.
func FuzzMeta(f *testing.F) {
	f.Add([]byte("200 http://www.cnn.com/\nHTTP/1.1 200 OK\r\n\r\n"), 200, "http://a/", true, []byte("HTTP/1.1 200 OK\r\n\r\n"))
	f.Add([]byte("404 truncated http://a/b\n"), 0, "", false, []byte{})
	f.Add([]byte("+1 \n\xff\n\n"), -3, "http://x/\xff", true, []byte("\xff\x00"))
	f.Fuzz(func(t *testing.T, v []byte, status int, url string, trunc bool, headers []byte) {
		if c, err := decodeMeta(v); err == nil {
			if got := encodeMeta(c); !bytes.Equal(got, v) {
				t.Fatalf("decodeMeta(%q) encodes back to %q", v, got)
			}
		}
		if strings.Contains(url, "\n") {
			return // a URL holds no line break
		}
		in := cells{{colStatus, []byte(strconv.Itoa(status))}}
		if trunc {
			in = append(in, cell{colTruncated, []byte("true")})
		}
		in = append(in, cell{colFetched, []byte(url)})
		if len(headers) > 0 {
			in = append(in, cell{colHeaders, headers})
		}
		out, err := decodeMeta(encodeMeta(in))
		if err != nil {
			t.Fatalf("the meta of %q does not decode: %v", in, err)
		}
		if strings.HasPrefix(url, "truncated ") {
			return // not a URL: it reads as the truncation mark
		}
		if diff := cmp.Diff(in, out, cmp.AllowUnexported(cell{})); diff != "" {
			t.Fatalf("encoded and decoded (-in +out):\n%s", diff)
		}
	})
}
