// Package emulator starts Google's in-process Cloud Bigtable emulator
// (cloud.google.com/go/bigtable/bttest) for tests, and points
// BIGTABLE_EMULATOR_HOST at it, as "gcloud beta emulators bigtable start"
// would for a user.
//
// # Caveats
//
//   - bttest is not safe for a ReadRows running beside a write to the same
//     row (the race detector sees it sort a row's cells while a stream reads
//     them). Start serialises the emulator's calls: reads share a lock,
//     writes take it alone. So a caller must not write to the emulator from
//     inside a ReadRows callback while the stream has more than gRPC's flow
//     control window (64 KiB) left to send: the write would wait for the
//     stream, and the stream for the caller. The tests never do.
package emulator

import (
	"context"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/bigtable/bttest"
	"google.golang.org/grpc"
)

// Start starts an emulator on 127.0.0.1, stops it when the test ends, and
// sets BIGTABLE_EMULATOR_HOST for the test. It returns the address.
func Start(t testing.TB) string {
	t.Helper()
	var mu sync.RWMutex
	lock := func(method string) func() {
		if isRead(method) {
			mu.RLock()
			return mu.RUnlock
		}
		mu.Lock()
		return mu.Unlock
	}
	srv, err := bttest.NewServer("127.0.0.1:0",
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			defer lock(info.FullMethod)()
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			defer lock(info.FullMethod)()
			return h(srv, ss)
		}),
	)
	if err != nil {
		t.Fatalf("emulator: %v", err)
	}
	t.Cleanup(srv.Close)
	t.Setenv("BIGTABLE_EMULATOR_HOST", srv.Addr)
	return srv.Addr
}

// isRead reports the emulator's calls that change nothing.
func isRead(method string) bool {
	for _, m := range []string{"/ReadRows", "/SampleRowKeys", "/ListTables", "/GetTable"} {
		if strings.HasSuffix(method, m) {
			return true
		}
	}
	return false
}
