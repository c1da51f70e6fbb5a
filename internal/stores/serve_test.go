package stores

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/webtable"
)

// TestServedStoreReadLive serves a store, reads it through Open(ForRead)
// while it is held (which goes through the server), and checks the
// endpoint file's life: written while serving, gone after Close.
func TestServedStoreReadLive(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := OpenServed(ctx, dir, webtable.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	p := &webtable.Page{Fetch: webtable.Fetch{URL: "http://www.cnn.com/", Status: 200, Time: at}, MIME: "text/html", KeepBody: true, Body: []byte("<p>hello")}
	if _, err := s.RecordFetch(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, EndpointFile)); err != nil {
		t.Errorf("no endpoint file while serving: %v", err)
	}
	live, err := Open(ctx, dir, ForRead, webtable.Options{})
	if err != nil {
		t.Fatalf("Open(ForRead) of a served store: %v", err)
	}
	row, err := live.Get(ctx, "com.cnn.www/", webtable.Query{Column: "contents:html"})
	if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != "<p>hello" {
		t.Errorf("Get through the server = %+v, %v; want the page", row, err)
	}
	live.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, EndpointFile)); !os.IsNotExist(err) {
		t.Errorf("endpoint file after Close: %v, want it gone", err)
	}
}

// TestStaleEndpoint checks that an endpoint file naming another process
// than the store's holder is ignored: the caller gets ErrInUse.
func TestStaleEndpoint(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	w, err := Open(ctx, dir, ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := writeEndpoint(filepath.Join(dir, EndpointFile), endpoint{Addr: "127.0.0.1:1", PID: os.Getpid() + 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, ForRead, webtable.Options{}); !errors.Is(err, bigtable.ErrInUse) {
		t.Errorf("Open(ForRead) with a stale endpoint file = %v, want ErrInUse", err)
	}
}

// TestServeRemoteNeedsAllowRemote checks that an address other machines
// can reach is refused without allowRemote.
func TestServeRemoteNeedsAllowRemote(t *testing.T) {
	_, err := OpenServed(context.Background(), filepath.Join(t.TempDir(), "db"), webtable.Options{}, "0.0.0.0:0", false)
	if !errors.Is(err, ErrRemote) {
		t.Errorf("OpenServed(0.0.0.0:0) = %v, want ErrRemote", err)
	}
}
