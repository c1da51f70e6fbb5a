package archive

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// benchPages is how many pages the benchmarks write and read.
const benchPages = 500

// benchCaptures returns n captures of HTML-like pages of about size bytes,
// with words drawn at random so that they compress like real pages (about
// 3-4x).
func benchCaptures(n, size int) []*Capture {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a of to and in news world sport page link home about contact search results video live markets tech politics health climate science analysis opinion")
	caps := make([]*Capture, n)
	for i := range caps {
		var b bytes.Buffer
		b.WriteString("<!DOCTYPE html><html><head><title>page</title></head><body>")
		for b.Len() < size {
			if rng.IntN(12) == 0 {
				fmt.Fprintf(&b, `<a href="/p/%d.html">%s</a> `, rng.IntN(100000), words[rng.IntN(len(words))])
			} else {
				fmt.Fprintf(&b, "%s%d ", words[rng.IntN(len(words))], rng.IntN(100))
			}
		}
		b.WriteString("</body></html>")
		caps[i] = &Capture{
			URL: fmt.Sprintf("http://www.example.com/p/%d.html", i), Time: t0.Add(time.Duration(i) * time.Millisecond), Status: 200,
			Header: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nServer: bench\r\n\r\n"),
			Body:   b.Bytes(),
		}
	}
	return caps
}

func captureBytes(caps []*Capture) (all []byte) {
	for _, c := range caps {
		all = append(all, c.Header...)
		all = append(all, c.Body...)
	}
	return all
}

// BenchmarkExport writes pages as a WARC (one gzip member per record);
// BenchmarkExportGzipCopy gzips the same bytes in one stream: what the
// WARC format costs beyond compression. MB/s are of uncompressed page
// bytes (headers and bodies).
func BenchmarkExport(b *testing.B) {
	caps := benchCaptures(benchPages, 20<<10)
	b.SetBytes(int64(len(captureBytes(caps))))
	for b.Loop() {
		w, err := NewWriter(io.Discard, "bench.warc.gz", "bench")
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range caps {
			if err := w.Write(c); err != nil {
				b.Fatal(err)
			}
		}
		w.WriteIndex(io.Discard)
	}
}

func BenchmarkExportGzipCopy(b *testing.B) {
	data := captureBytes(benchCaptures(benchPages, 20<<10))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		zw := gzip.NewWriter(io.Discard)
		zw.Write(data)
		zw.Close()
	}
}

// BenchmarkImport reads the pages back from a WARC file;
// BenchmarkImportGunzipCopy gunzips the same file.
func BenchmarkImport(b *testing.B) {
	caps := benchCaptures(benchPages, 20<<10)
	path, _ := writeBenchWARC(b, caps)
	b.SetBytes(int64(len(captureBytes(caps))))
	for b.Loop() {
		r, err := Open(path, 0)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		r.Close()
		if n != len(caps) {
			b.Fatalf("read %d captures, want %d", n, len(caps))
		}
	}
}

func BenchmarkImportGunzipCopy(b *testing.B) {
	caps := benchCaptures(benchPages, 20<<10)
	path, _ := writeBenchWARC(b, caps)
	b.SetBytes(int64(len(captureBytes(caps))))
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

func writeBenchWARC(b *testing.B, caps []*Capture) (string, int64) {
	b.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "bench.warc.gz", "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range caps {
		if err := w.Write(c); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(b.TempDir(), "bench.warc.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, int64(buf.Len())
}
