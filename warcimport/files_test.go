package warcimport

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/archive"
	"github.com/webtable/webtable/crawlrun"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// TestFiles imports files in order and says, by kind, why it stopped: a
// file that is not WARC, one that cannot be read, or a cancelled context;
// what came before the stop is stored and counted.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	aw, err := archive.NewWriter(&buf, "one.warc.gz", "test")
	if err != nil {
		t.Fatal(err)
	}
	hdr := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	if err := aw.Write(&archive.Capture{URL: "http://www.cnn.com/", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Status: 200, Header: hdr, Body: []byte("<p>A</p>")}); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "one.warc.gz")
	notWARC := filepath.Join(dir, "page.html")
	for name, b := range map[string][]byte{good: buf.Bytes(), notWARC: bytes.Repeat([]byte("<html>"), 10)} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		files  []string
		want   crawlrun.Kind // 0: no error
		stored bool
	}{
		{"good", ctx, []string{good}, 0, true},
		{"not WARC after good", ctx, []string{good, notWARC, good}, crawlrun.Usage, true},
		{"missing", ctx, []string{filepath.Join(dir, "absent.warc")}, crawlrun.StoreFailed, false},
		{"cancelled", cancelled, []string{good}, crawlrun.Interrupted, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := stores.Open(ctx, filepath.Join(t.TempDir(), "w.db"), stores.ForCrawl, webtable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			_, err = Files(tc.ctx, w, tc.files, Options{})
			var e *crawlrun.Error
			switch {
			case tc.want == 0 && err != nil:
				t.Fatalf("Files(%v) = %v, want no error", tc.files, err)
			case tc.want != 0 && (!errors.As(err, &e) || e.Kind != tc.want):
				t.Fatalf("Files(%v) = %#v, want an *Error of kind %d", tc.files, err, tc.want)
			}
			if _, ok, _ := w.Content(ctx, "http://www.cnn.com/"); ok != tc.stored {
				t.Errorf("www.cnn.com stored: %v, want %v", ok, tc.stored)
			}
		})
	}
}
