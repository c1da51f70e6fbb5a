package stores

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
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
	p := &webtable.Page{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/", Status: 200, Time: at}, MIME: "text/html", KeepBody: true, Body: []byte("<p>hello")}
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
	dir := filepath.Join(t.TempDir(), "db")
	_, err := OpenServed(context.Background(), dir, webtable.Options{}, "0.0.0.0:0", false)
	if !errors.Is(err, ErrRemote) {
		t.Errorf("OpenServed(0.0.0.0:0) = %v, want ErrRemote", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused address left %s behind (%v): it must create nothing", dir, err)
	}
}

// TestServedStoreBigPage writes a 60 MiB page (bigPage) through the server
// and reads it, and one stored by the crawl, back through Open(ForRead): a
// row comes in one gRPC message, far above gRPC's default 4 MiB.
func TestServedStoreBigPage(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := OpenServed(ctx, dir, webtable.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const size = bigPage
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	p := &webtable.Page{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/big", Status: 200, Time: at}, MIME: "text/html", KeepBody: true, Body: body}
	if _, err := s.RecordFetch(ctx, p); err != nil {
		t.Fatal(err)
	}

	// Into the server: Google's client, as any user's program dials it.
	conn, err := grpc.NewClient(s.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cdb, err := cloud.Open(ctx, "p", "i", option.WithGRPCConn(conn), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer cdb.Close()
	m := bigtable.NewMutation()
	m.Set("contents", "html", bigtable.Timestamp(at.UnixMicro()), body)
	if err := cdb.Open(tableName(webtable.Options{})).Apply(ctx, "com.cnn.www/wire", m); err != nil {
		t.Fatalf("writing a %d-byte cell through the server: %v", size, err)
	}

	// Out of it: query's path.
	live, err := Open(ctx, dir, ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	for _, key := range []string{"com.cnn.www/big", "com.cnn.www/wire"} {
		row, err := live.Get(ctx, key, webtable.Query{Column: "contents:html"})
		if err != nil || len(row.Cells) != 1 || !bytes.Equal(row.Cells[0].Value, body) {
			n := -1
			if len(row.Cells) == 1 {
				n = len(row.Cells[0].Value)
			}
			t.Errorf("Get(%s) through the server: %d cells (first %d bytes), %v; want the %d-byte page", key, len(row.Cells), n, err, size)
		}
	}
}
