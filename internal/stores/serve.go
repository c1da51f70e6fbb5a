package stores

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/cloud"
	"github.com/webtable/webtable/bigtable/server"
	"github.com/webtable/webtable/webtable"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// EndpointFile is the file in a store directory where a crawl that serves
// its store (crawl --serve) writes the address it serves on and its process
// id, so that query can read the store while the crawl holds it. It is
// written once the server listens (to a temporary name, then renamed) and
// removed when the crawl closes the store.
const EndpointFile = "SERVING.json"

// endpoint is the content of EndpointFile.
type endpoint struct {
	Addr string `json:"addr"`
	PID  int    `json:"pid"`
}

// shutdownGrace is how long a served store waits for calls in progress
// before cutting them off when it closes.
const shutdownGrace = 3 * time.Second

// Served is a WebTable in the embedded store, opened for a crawl and served
// over Cloud Bigtable's gRPC API (see package bigtable/server) at the same
// time. Close it instead of its WebTable.
type Served struct {
	*webtable.WebTable
	srv  *server.Server
	file string // EndpointFile's path
}

// OpenServed is Open(ctx, dir, ForCrawl, opts) for a directory, also
// serving the store on addr (host:port; port 0 picks one) until Close. An
// address off loopback needs allowRemote, since the protocol has no
// authentication. While it runs, a client can write to the crawl's table,
// delete rows and change GC policies (which can empty it), but not delete
// the table, drop a family or drop a row range (server.WithProtectedTables);
// an address refused creates nothing.
func OpenServed(ctx context.Context, dir string, opts webtable.Options, addr string, allowRemote bool) (*Served, error) {
	if IsCloud(dir) {
		return nil, fmt.Errorf("stores: serving %s: only a store in a directory can be served (Cloud Bigtable is already a server)", dir)
	}
	// NB: refused before the store is opened, so that a refused address
	// leaves no store behind (server.Listen checks again).
	if !allowRemote && !IsLoopback(addr) {
		return nil, fmt.Errorf("stores: serving %s: %w: %s (serving a store beyond this machine needs the allow-remote setting)", dir, ErrRemote, addr)
	}
	// NB: sized as Open(ForCrawl) sizes a crawl's store, the caller's
	// options after.
	db, err := bigtable.Open(dir, append(CrawlStoreOptions(), opts.Store...)...)
	if err != nil {
		return nil, fmt.Errorf("stores: opening store %s: %w", dir, err)
	}
	name := tableName(opts)
	w, err := webtable.New(ctx, db, db.Open(name), true, opts) // closes db on error
	if err != nil {
		return nil, fmt.Errorf("stores: %s: %w", dir, err)
	}
	srv, err := server.Listen(db, addr, server.WithProtectedTables(name), server.WithAllowRemote(allowRemote))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("stores: serving %s: %w", dir, err)
	}
	s := &Served{WebTable: w, srv: srv, file: filepath.Join(dir, EndpointFile)}
	if err := writeEndpoint(s.file, endpoint{Addr: srv.Addr(), PID: os.Getpid()}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Addr is the address served, with the port chosen.
func (s *Served) Addr() string { return s.srv.Addr() }

// StopServing removes the endpoint file and stops serving (calls in
// progress get a few seconds to end); the store stays open. Calling it
// again does nothing.
func (s *Served) StopServing() error {
	errFile := os.Remove(s.file)
	if errors.Is(errFile, os.ErrNotExist) {
		errFile = nil
	}
	errSrv := s.srv.Close(shutdownGrace)
	if err := errors.Join(errFile, errSrv); err != nil {
		return fmt.Errorf("stores: stopping the server of the store: %w", err)
	}
	return nil
}

// Close stops serving and closes the store.
func (s *Served) Close() error {
	errSrv := s.StopServing()
	errW := s.WebTable.Close()
	return errors.Join(errSrv, errW)
}

// IsLoopback reports whether a --serve address stays on this machine.
func IsLoopback(addr string) bool { return server.IsLoopback(addr) }

// ErrRemote is returned by OpenServed for an address off loopback
// without allowRemote.
var ErrRemote = server.ErrRemote

func writeEndpoint(path string, e endpoint) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("stores: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("stores: writing the server's address: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("stores: writing the server's address: %w", err)
	}
	return nil
}

// liveEndpoint returns the address of the server of the crawl holding the
// store in dir, when that crawl serves it: the endpoint file names the
// process that holds the store's lock.
func liveEndpoint(dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, EndpointFile))
	if err != nil {
		return "", false
	}
	var e endpoint
	if json.Unmarshal(b, &e) != nil || e.Addr == "" || e.PID <= 0 {
		return "", false
	}
	if bigtable.LockHolder(dir) != e.PID {
		return "", false // left behind by a crawl that was killed
	}
	return e.Addr, true
}

// openLive opens the WebTable served at addr, read through the Cloud
// Bigtable client, plaintext and without credentials.
func openLive(ctx context.Context, dir, addr string, opts webtable.Options) (*webtable.WebTable, error) {
	// NB: a row comes in one response, and a cell holds up to 100 MiB:
	// gRPC's default 4 MiB receive limit would refuse big pages.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(server.MaxResponseSize), grpc.MaxCallSendMsgSize(server.MaxRequestSize)))
	if err != nil {
		return nil, fmt.Errorf("stores: %s is served at %s, but: %w", dir, addr, err)
	}
	// Any project and instance name the served store.
	cdb, err := cloud.Open(ctx, "local", "store", option.WithGRPCConn(conn), option.WithoutAuthentication())
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("stores: %s is served at %s, but: %w", dir, addr, err)
	}
	w, err := webtable.New(ctx, cdb, cdb.Open(tableName(opts)), false, opts)
	if err != nil {
		return nil, fmt.Errorf("stores: reading %s through its server at %s: %w", dir, addr, err)
	}
	return w, nil
}
