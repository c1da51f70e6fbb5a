package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// wgetSite is a small site served on loopback for wget to archive: a
// chunked home page, a plain page, a gzipped chunked page and an image.
func wgetSite(t *testing.T) (*httptest.Server, map[string]string) {
	pages := map[string]string{
		"/":       `<html><body><a href="/a.html">Page A</a> <a href="b.html">Page B</a> <img src="/img.png"><a href="/img.png">picture</a></body></html>`,
		"/a.html": `<html><body><a href="/">Home</a> <a href="/b.html">B from A</a></body></html>`,
		"/b.html": `<html><body><a href="/a.html">A from B</a></body></html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			body := pages["/"]
			w.Write([]byte(body[:20]))
			w.(http.Flusher).Flush() // chunked from here
			w.Write([]byte(body[20:]))
		case "/a.html":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", fmt.Sprint(len(pages["/a.html"])))
			w.Write([]byte(pages["/a.html"]))
		case "/b.html":
			// gzip whether asked for or not: wget keeps the bytes as received.
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write([]byte(pages["/b.html"]))
			zw.Close()
		case "/img.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\nnot really"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, pages
}

// needTool finds a program the test runs; under CI a missing one fails
// the test, elsewhere it skips saying why.
func needTool(t *testing.T, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s is not installed (%v): %s; CI runs this test", name, err, install)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// TestFromWgetWARC: a WARC that wget --warc-file wrote of a loopback site
// imports with every page and every anchor between them.
func TestFromWgetWARC(t *testing.T) {
	wget := needTool(t, "wget", "apt-get install wget (.ci/run does)")
	srv, pages := wgetSite(t)
	dir := t.TempDir()
	cmd := exec.Command(wget, "--recursive", "--level=3", "--no-verbose", "-e", "robots=off",
		"--directory-prefix", filepath.Join(dir, "files"), "--warc-file", filepath.Join(dir, "site"), srv.URL+"/")
	cmd.Env = append(os.Environ(), "http_proxy=", "https_proxy=", "HTTP_PROXY=", "HTTPS_PROXY=", "no_proxy=*")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wget: %v\n%s", err, out)
	}
	warc := filepath.Join(dir, "site.warc.gz")
	db := filepath.Join(dir, "w.db")
	code, _, stderr := runCrawl(context.Background(), "--from-warc", warc, "--db", db)
	if code != exitOK {
		t.Fatalf("crawl --from-warc %s: exit %d\n%s", warc, code, stderr)
	}
	for _, want := range []string{"read 4 captures: 3 new versions", "request", "warcinfo", "resource"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("crawl --from-warc said %q, want it to mention %q", stderr, want)
		}
	}
	ctx := context.Background()
	w, err := stores.Open(ctx, db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	key := func(path string) string {
		k, err := urlkey.Key(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for path, body := range pages {
		got, ok, err := w.Content(ctx, srv.URL+path)
		if err != nil || !ok || string(got) != body {
			t.Errorf("contents:html of %s = %q (stored %v, %v), want %q", path, got, ok, err, body)
		}
	}
	f, ok, err := w.LastFetch(ctx, srv.URL+"/img.png")
	if err != nil || !ok || f.MediaType != "image/png" || f.Status != 200 || f.State != crawlstore.StateDone {
		t.Errorf("fetch of /img.png = %+v, %v, %v; want a done 200 image/png", f, ok, err)
	}
	if _, ok, _ := w.Content(ctx, srv.URL+"/img.png"); ok {
		t.Errorf("the image's body was kept as contents:html")
	}
	ref := func(path string) string {
		u, _ := urlkey.Canonical(srv.URL + path)
		return urlkey.Referrer(u)
	}
	for _, a := range []struct{ to, from, text string }{
		{"/a.html", "/", "Page A"}, {"/b.html", "/", "Page B"}, {"/img.png", "/", "picture"},
		{"/", "/a.html", "Home"}, {"/b.html", "/a.html", "B from A"}, {"/a.html", "/b.html", "A from B"},
	} {
		row, err := w.Get(ctx, key(a.to), webtable.Query{Column: "anchor:" + ref(a.from)})
		if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != a.text {
			t.Errorf("anchor:%s in %s = %v (%v), want %q", ref(a.from), key(a.to), row.Cells, err, a.text)
		}
	}
	// Each version keeps the URL and headers as wget recorded them.
	var caps []webtable.Capture
	err = w.Captures(ctx, []urlkey.Range{{Start: key("/b.html"), End: key("/b.html") + "\x00"}}, webtable.Selection{All: true}, func(c *webtable.Capture) error {
		caps = append(caps, *c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 || caps[0].URL != srv.URL+"/b.html" || !strings.Contains(string(caps[0].Header), "Content-Encoding: gzip") || caps[0].Status != 200 {
		t.Errorf("captures of /b.html: %+v, want one with its URL, status 200 and headers naming gzip", caps)
	}
}

// TestFromWARCBadFile: a damaged file stops the import with one error
// naming the file and offset; the captures before it are stored.
func TestFromWARCBadFile(t *testing.T) {
	dir := t.TempDir()
	rec := func(uri, body string) string {
		return fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\nWARC-Date: 2026-01-02T03:04:05Z\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			strings.Repeat("1", 8)+"-1111-1111-1111-"+strings.Repeat("1", 12), uri, len(body), body)
	}
	page := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=/two>two</a>"
	good := rec("http://a.test/", page)
	bad := strings.Replace(rec("http://a.test/two", page), "Content-Length: ", "Content-Length: 9", 1)
	path := filepath.Join(dir, "bad.warc")
	os.WriteFile(path, []byte(good+bad), 0o644)
	db := filepath.Join(dir, "w.db")
	code, _, stderr := runCrawl(context.Background(), "--from-warc", path, "--db", db)
	want := fmt.Sprintf("%s at offset %d", path, len(good))
	if code != exitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, "Content-Length") {
		t.Errorf("crawl --from-warc of a damaged file: exit %d, %q; want %d and %q", code, stderr, exitUsage, want)
	}
	w, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, ok, _ := w.Content(context.Background(), "http://a.test/"); !ok {
		t.Errorf("the good record before the damage was not stored")
	}
	for _, args := range [][]string{{"--from-warc", path, "--demo"}, {"--from-warc", path, "--seeds", "x.txt"}} {
		if code, _, stderr := runCrawl(context.Background(), args...); code != exitUsage || !strings.Contains(stderr, "--from-warc") {
			t.Errorf("crawl %v: exit %d %q, want a usage error", args, code, stderr)
		}
	}
	w.Close()
	notWARC := filepath.Join(dir, "page.html")
	os.WriteFile(notWARC, bytes.Repeat([]byte("<html>"), 10), 0o644)
	if code, _, stderr := runCrawl(context.Background(), "--from-warc", notWARC, "--db", db); code != exitUsage || !strings.Contains(stderr, "not a WARC file") || !strings.Contains(stderr, notWARC) {
		t.Errorf("crawl --from-warc of an HTML file: exit %d %q", code, stderr)
	}
}

// TestFromWARCOutOfOrderOnCloudBigtable: captures out of date order, into
// Cloud Bigtable (the emulator), make a version only where the content
// changes in time, and two files import as one.
func TestFromWARCOutOfOrderOnCloudBigtable(t *testing.T) {
	emulator(t)
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	write := func(name string, caps ...[2]any) string {
		var buf bytes.Buffer
		w, err := archive.NewWriter(&buf, name, "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range caps {
			err := w.Write(&archive.Capture{URL: "http://www.cnn.com/", Time: t0.Add(c[0].(time.Duration)), Status: 200, Header: hdr, Body: []byte(c[1].(string))})
			if err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, name)
		os.WriteFile(path, buf.Bytes(), 0o644)
		return path
	}
	// In time: A at 1s and 2s, B at 3s, A at 4s; the files give them in
	// another order.
	f1 := write("one.warc.gz", [2]any{2 * time.Second, "A"}, [2]any{3 * time.Second, "B"})
	f2 := write("two.warc.gz", [2]any{time.Second, "A"}, [2]any{4 * time.Second, "A"})
	db := "bigtable://p/fromwarc"
	code, _, stderr := runCrawl(context.Background(), "--from-warc", f1, f2, "--db", db)
	if code != exitOK {
		t.Fatalf("crawl --from-warc: exit %d\n%s", code, stderr)
	}
	w, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	vs, err := w.Versions(context.Background(), "com.cnn.www/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Timestamp.Time().UTC().Sub(t0).String())
	}
	if want := "4s 3s 1s"; strings.Join(got, " ") != want {
		t.Errorf("versions at seconds %v, want %s (A from 1s, B at 3s, A again at 4s)", got, want)
	}
}

// TestFromWARCSameInstantOnCloudBigtable: Cloud Bigtable keeps times to
// the millisecond, so two captures of one page in one millisecond with
// different bodies cannot both be kept there: the import stops with an
// error saying so, rather than one overwriting the other; the capture
// before it is stored.
func TestFromWARCSameInstantOnCloudBigtable(t *testing.T) {
	emulator(t)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var buf bytes.Buffer
	w, err := archive.NewWriter(&buf, "same.warc.gz", "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"A", "B"} {
		c := &archive.Capture{URL: "http://www.cnn.com/", Time: t0, Status: 200, Header: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"), Body: []byte(body)}
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "same.warc.gz")
	os.WriteFile(path, buf.Bytes(), 0o644)
	db := "bigtable://p/sameinstant"
	code, _, stderr := runCrawl(context.Background(), "--from-warc", path, "--db", db)
	if code == exitOK || !strings.Contains(stderr, "keeps times to the millisecond only") {
		t.Fatalf("crawl --from-warc: exit %d, want an error saying the store keeps milliseconds only\n%s", code, stderr)
	}
	wt, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close()
	vs, err := wt.Versions(context.Background(), "com.cnn.www/")
	if err != nil || len(vs) != 1 {
		t.Errorf("versions %+v, %v; want the first capture's", vs, err)
	}
}

// TestFromWARCSkipsOddRecords: a capture whose URL the WebTable cannot key
// and a dns: response are counted and skipped; the rest imports.
func TestFromWARCSkipsOddRecords(t *testing.T) {
	dir := t.TempDir()
	rec := func(uri, ct, block string) string {
		return fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:11111111-1111-1111-1111-%012d>\r\nWARC-Target-URI: %s\r\nWARC-Date: 2026-01-02T03:04:05Z\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			len(uri), uri, ct, len(block), block)
	}
	const http = "application/http;msgtype=response"
	page := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page</p>"
	path := filepath.Join(dir, "odd.warc")
	os.WriteFile(path, []byte(rec("http://a.test/", http, page)+
		rec("dns:a.test", "text/dns", "20260102030405\na.test. 300 IN A 127.0.0.1\n")+
		rec("http://exa mple.test/", http, page)+
		rec("http://a.test/last", http, page)), 0o644)
	db := filepath.Join(dir, "w.db")
	code, _, stderr := runCrawl(context.Background(), "--from-warc", path, "--db", db)
	if code != exitOK || !strings.Contains(stderr, "1 capture with a URL the WebTable cannot key") || !strings.Contains(stderr, "1 response (not http)") {
		t.Fatalf("crawl --from-warc: exit %d, %q; want success counting the skipped records", code, stderr)
	}
	w, err := stores.Open(context.Background(), db, stores.ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, u := range []string{"http://a.test/", "http://a.test/last"} {
		if _, ok, _ := w.Content(context.Background(), u); !ok {
			t.Errorf("%s was not imported", u)
		}
	}
}
