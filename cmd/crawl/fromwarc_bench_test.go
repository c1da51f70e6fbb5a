package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/webtable/webtable/archive"
)

// warcBenchPages is the size of the WARC the import benchmarks read: 500
// pages of about 20 KB, each linking to 8 others of the site.
const warcBenchPages = 500

func writeWARCBench(b *testing.B) (path string, raw int64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	w, err := archive.NewWriter(&buf, "bench.warc.gz", "bench")
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n")
	for i := range warcBenchPages {
		var body bytes.Buffer
		body.WriteString("<html><body>")
		for j := 0; body.Len() < 20<<10; j++ {
			if j%40 == 0 {
				fmt.Fprintf(&body, `<a href="/p/%d.html">page %d</a> `, rng.IntN(warcBenchPages), j)
			} else {
				fmt.Fprintf(&body, "word%d ", rng.IntN(2000))
			}
		}
		body.WriteString("</body></html>")
		c := &archive.Capture{URL: fmt.Sprintf("http://www.example.com/p/%d.html", i), Time: t0.Add(time.Duration(i) * time.Millisecond),
			Status: 200, Header: hdr, Body: body.Bytes()}
		raw += int64(len(hdr) + body.Len())
		if err := w.Write(c); err != nil {
			b.Fatal(err)
		}
	}
	path = filepath.Join(b.TempDir(), "bench.warc.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, raw
}

// BenchmarkFromWARC is crawl --from-warc of a 500-page WARC into a new
// embedded store (bodies, anchors and fetch records written);
// BenchmarkFromWARCGunzipCopy gunzips the same file. MB/s are of
// uncompressed page bytes.
func BenchmarkFromWARC(b *testing.B) {
	path, raw := writeWARCBench(b)
	b.SetBytes(raw)
	for b.Loop() {
		db := filepath.Join(b.TempDir(), "db")
		if code, _, stderr := runCrawl(context.Background(), "--from-warc", path, "--db", db); code != exitOK {
			b.Fatalf("crawl --from-warc: %s", stderr)
		}
	}
}

func BenchmarkFromWARCGunzipCopy(b *testing.B) {
	path, raw := writeWARCBench(b)
	b.SetBytes(raw)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, zr)
		f.Close()
	}
}
