package cloud_test

import (
	"context"
	"errors"
	"testing"

	"cloud.google.com/go/bigtable/bttest"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/bigtabletest"
	"github.com/webtable/webtable/bigtable/cloud"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// newEmulator starts Google's in-process Cloud Bigtable emulator on
// loopback and returns its address.
func newEmulator(t testing.TB) string {
	t.Helper()
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatalf("bttest.NewServer: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv.Addr
}

// openEmulator returns a DB on a fresh emulator, reached through a gRPC
// connection the test makes.
func openEmulator(t testing.TB) *cloud.DB {
	t.Helper()
	addr := newEmulator(t)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("grpc.NewClient(%s): %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	db, err := cloud.Open(context.Background(), "proj", "inst", option.WithGRPCConn(conn), option.WithoutAuthentication())
	if err != nil {
		t.Fatalf("cloud.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// TestConformanceEmulator runs bigtabletest's suite on the adapter connected
// to the emulator.
func TestConformanceEmulator(t *testing.T) {
	bigtabletest.RunConformance(t, bigtabletest.Emulator, func(t *testing.T) bigtabletest.Store {
		db := openEmulator(t)
		return bigtabletest.Adapt(db, db.Open)
	})
}

// TestOpenURLHonoursEmulatorHost checks that BIGTABLE_EMULATOR_HOST alone
// points Open at the emulator, as Google's tools expect.
func TestOpenURLHonoursEmulatorHost(t *testing.T) {
	t.Setenv("BIGTABLE_EMULATOR_HOST", newEmulator(t))
	ctx := t.Context()
	db, table, err := cloud.OpenURL(ctx, "bigtable://proj/inst/webtable")
	if err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	defer db.Close()
	if table != "webtable" || db.String() != "bigtable://proj/inst" {
		t.Errorf("OpenURL gave table %q and DB %v, want webtable and bigtable://proj/inst", table, db)
	}
	if err := db.CreateTable(ctx, table); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	got, err := db.Tables(ctx)
	if err != nil || len(got) != 1 || got[0] != table {
		t.Errorf("Tables = %q, %v; want [webtable]", got, err)
	}
}

func TestOpenURLErrors(t *testing.T) {
	if _, _, err := cloud.OpenURL(t.Context(), "/var/lib/webtable"); !errors.Is(err, cloud.ErrInvalidURL) {
		t.Errorf("OpenURL(directory) = %v, want ErrInvalidURL", err)
	}
	if _, err := cloud.Open(t.Context(), "", "inst"); err == nil {
		t.Error("Open with an empty project succeeded")
	}
}

// TestErrorKeepsStatusText checks that an error of the Cloud side keeps
// its sentinel and the server's words.
func TestErrorKeepsStatusText(t *testing.T) {
	db := openEmulator(t)
	err := db.Open("nope").Apply(t.Context(), "r", func() *bigtable.Mutation {
		m := bigtable.NewMutation()
		m.DeleteRow()
		return m
	}())
	if !errors.Is(err, bigtable.ErrNotFound) {
		t.Fatalf("Apply on a missing table = %v, want ErrNotFound", err)
	}
	const want = `cloud: apply to row "r" of table "nope": bigtable: no such table: `
	if got := err.Error(); len(got) <= len(want) || got[:len(want)] != want {
		t.Errorf("error = %q, want it to start %q and go on with the server's words", got, want)
	}
}

// TestRows checks the iterator form: rows in key order, an early break,
// and an error as the last element.
func TestRows(t *testing.T) {
	ctx := t.Context()
	db := openEmulator(t)
	if err := db.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "A"); err != nil {
		t.Fatal(err)
	}
	tbl := db.Open("t")
	for _, row := range []string{"c", "a", "b"} {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, []byte(row))
		if err := tbl.Apply(ctx, row, m); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for r, err := range tbl.Rows(ctx, bigtable.InfiniteRange("")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Key())
		if len(got) == 2 {
			break
		}
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Rows with a break after two = %q, want [a b]", got)
	}
	var last error
	n := 0
	for r, err := range db.Open("nope").Rows(ctx, bigtable.InfiniteRange("")) {
		n++
		if r != nil {
			t.Errorf("Rows of a missing table yielded row %q", r.Key())
		}
		last = err
	}
	if n != 1 || !errors.Is(last, bigtable.ErrNotFound) {
		t.Errorf("Rows of a missing table: %d elements, last error %v; want one, ErrNotFound", n, last)
	}
}
