package cloud_test

import (
	"context"
	"fmt"
	"testing"

	gbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The benchmarks do the same work through this package and through the
// Cloud client directly (the baseline) on one emulator, so the ratio is the
// adapter's cost: describing bigtable's values, translating them, and
// translating rows back. Run with -benchmem.

// benchSetup returns table "t" (family A) of a fresh emulator, reached
// through this package and through the Cloud client.
func benchSetup(b *testing.B) (*cloud.Table, *gbt.Table) {
	b.Helper()
	ctx := context.Background()
	addr := newEmulator(b)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	db, err := cloud.Open(ctx, "proj", "inst", option.WithGRPCConn(conn), option.WithoutAuthentication())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.CreateTable(ctx, "t"); err != nil {
		b.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "A"); err != nil {
		b.Fatal(err)
	}
	rawConn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	raw, err := gbt.NewClientWithConfig(ctx, "proj", "inst", gbt.ClientConfig{MetricsProvider: gbt.NoopMetricsProvider{}},
		option.WithGRPCConn(rawConn), option.WithoutAuthentication())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	return db.Open("t"), raw.Open("t")
}

var value = make([]byte, 1000)

func BenchmarkApply(b *testing.B) {
	ours, raw := benchSetup(b)
	ctx := context.Background()
	b.Run("adapter", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m := bigtable.NewMutation()
			m.Set("A", "q", bigtable.Timestamp(i%1000)*1000, value)
			if err := ours.Apply(ctx, fmt.Sprintf("row%05d", i%1000), m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m := gbt.NewMutation()
			m.Set("A", "q", gbt.Timestamp(i%1000)*1000, value)
			if err := raw.Apply(ctx, fmt.Sprintf("row%05d", i%1000), m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkReadRowsPrefix(b *testing.B) {
	ours, raw := benchSetup(b)
	ctx := context.Background()
	for i := range 100 {
		m := bigtable.NewMutation()
		m.Set("A", "q", 1000, value)
		if err := ours.Apply(ctx, fmt.Sprintf("row%05d", i), m); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("adapter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			err := ours.ReadRows(ctx, bigtable.PrefixRange("row000"), func(bigtable.Row) bool { n++; return true },
				bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter("A"), bigtable.LatestNFilter(1))))
			if err != nil || n != 100 {
				b.Fatalf("read %d rows, %v; want 100", n, err)
			}
		}
	})
	b.Run("client", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			err := raw.ReadRows(ctx, gbt.PrefixRange("row000"), func(gbt.Row) bool { n++; return true },
				gbt.RowFilter(gbt.ChainFilters(gbt.FamilyFilter("A"), gbt.LatestNFilter(1))))
			if err != nil || n != 100 {
				b.Fatalf("read %d rows, %v; want 100", n, err)
			}
		}
	})
}
