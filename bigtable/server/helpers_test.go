package server

import (
	"context"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// serve opens a fresh store in a temporary directory and serves it on
// loopback; both stop when the test ends.
func serve(t testing.TB, opts ...Option) (*bigtable.DB, *Server) {
	t.Helper()
	db, err := bigtable.Open(t.TempDir())
	if err != nil {
		t.Fatalf("bigtable.Open: %v", err)
	}
	srv, err := Listen(db, "127.0.0.1:0", opts...)
	if err != nil {
		db.Close()
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(5 * time.Second); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := db.Close(); err != nil {
			t.Errorf("db.Close: %v", err)
		}
	})
	return db, srv
}

// dial connects a gRPC client to addr, closed when the test ends.
func dial(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		t.Fatalf("grpc.NewClient(%s): %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// openClient returns the Cloud Bigtable Go client, through bigtable/cloud,
// connected to the server at addr.
func openClient(t testing.TB, addr string) *cloud.DB {
	t.Helper()
	cdb, err := cloud.Open(context.Background(), "proj", "inst", option.WithGRPCConn(dial(t, addr)), option.WithoutAuthentication())
	if err != nil {
		t.Fatalf("cloud.Open: %v", err)
	}
	t.Cleanup(func() { cdb.Close() })
	return cdb
}
