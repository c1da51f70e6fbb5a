package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	adminpb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// MaxRequestSize is the largest request accepted, in bytes: 256 MiB, as
// Cloud Bigtable. A larger one is refused with ResourceExhausted.
const MaxRequestSize = 256 << 20

// MaxResponseSize is the largest response a client of the server must be
// ready to receive, in bytes: 256 MiB, the limit Google's clients set. A
// row is never split between responses, so a row of two cells at
// bigtable.MaxValueSize (100 MiB) needs more than gRPC's default 4 MiB.
const MaxResponseSize = 256 << 20

// Limits on what clients may hold of the server.
const (
	// MaxStreams is the most calls one connection may run at once
	// (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); a client queues the rest.
	MaxStreams = 100
	// MaxConnections is the most connections served at once; a further
	// one waits in the listen queue until another closes.
	MaxConnections = 256
	// MaxIdle is how long a connection with no call may stay open.
	MaxIdle = 5 * time.Minute
	// PingInterval is how long a connection may stay silent before the
	// server pings it, and PingTimeout how long it waits for the answer
	// before it closes the connection: a vanished client frees its slot.
	PingInterval, PingTimeout = time.Minute, 20 * time.Second
	// MinClientPing is the shortest interval between a client's
	// keepalive pings the server accepts (with or without calls); a
	// client that pings more often is sent GOAWAY. Google's clients ping
	// at most every 30 s.
	MinClientPing = 10 * time.Second
)

// ErrRemote: Listen was asked for an address that is not on loopback
// without WithAllowRemote.
var ErrRemote = errors.New("server: address is not loopback")

// Option configures a Server.
type Option func(*config)

type config struct {
	protected   map[string]bool
	allowRemote bool
	batchBytes  int
	maxConns    int
	maxIdle     time.Duration
}

// WithProtectedTables names tables that a program is writing (the crawl's
// WebTable): DeleteTable, DropRowRange and dropping one of their column
// families answer FailedPrecondition. Everything else stays open to any
// client: writes, row deletes and GC policy changes, which can empty the
// table. The default is none.
func WithProtectedTables(tables ...string) Option {
	return func(c *config) {
		for _, t := range tables {
			c.protected[t] = true
		}
	}
}

// WithAllowRemote lets Listen bind an address that is not on loopback.
// The protocol has no authentication: anyone who reaches the port reads
// and writes the store. The default is false.
func WithAllowRemote(allow bool) Option { return func(c *config) { c.allowRemote = allow } }

// withBatchBytes sets how many bytes of responses one read batch encodes
// (tests make it small to force many batches).
func withBatchBytes(n int) Option { return func(c *config) { c.batchBytes = n } }

// withLimits sets the connection limit and the idle time (tests make them
// small).
func withLimits(conns int, idle time.Duration) Option {
	return func(c *config) { c.maxConns, c.maxIdle = conns, idle }
}

// Server serves a DB over gRPC until Close.
type Server struct {
	g    *grpc.Server
	lis  net.Listener
	done chan struct{} // closed when Serve returns
	err  error         // Serve's error, set before done closes

	closeOnce sync.Once
}

// Listen binds addr (host:port; port 0 picks a free one) and serves db on
// it in the background with both services: data
// (google.bigtable.v2.Bigtable) and admin
// (google.bigtable.admin.v2.BigtableTableAdmin). An address that is not
// on loopback needs WithAllowRemote. The caller keeps db and closes it
// after Close.
func Listen(db *bigtable.DB, addr string, opts ...Option) (*Server, error) {
	c := config{protected: map[string]bool{}, batchBytes: defaultBatchBytes, maxConns: MaxConnections, maxIdle: MaxIdle}
	for _, o := range opts {
		o(&c)
	}
	if !c.allowRemote && !IsLoopback(addr) {
		return nil, fmt.Errorf("%w: %s (serving a store beyond this machine needs the allow-remote setting)", ErrRemote, addr)
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", addr, err)
	}
	lis = netutil.LimitListener(lis, c.maxConns)
	// NB: the codec is what lets ReadRows send responses it wrote in wire
	// form itself (chunks.go).
	g := grpc.NewServer(
		grpc.MaxRecvMsgSize(MaxRequestSize),
		grpc.MaxSendMsgSize(MaxResponseSize),
		grpc.MaxConcurrentStreams(MaxStreams),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: c.maxIdle, Time: PingInterval, Timeout: PingTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: MinClientPing, PermitWithoutStream: true}),
		grpc.ForceServerCodecV2(rawCodec{}),
	)
	btpb.RegisterBigtableServer(g, &dataServer{db: db, cfg: c})
	adminpb.RegisterBigtableTableAdminServer(g, &adminServer{db: db, cfg: c})
	s := &Server{g: g, lis: lis, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = g.Serve(lis)
	}()
	return s, nil
}

// Addr returns the address served, with the port chosen (127.0.0.1:34567).
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Close stops serving: it waits up to grace for calls in progress to end,
// then cuts the rest off. It returns once no call runs on the store any
// more.
func (s *Server) Close(grace time.Duration) error {
	s.closeOnce.Do(func() {
		stopped := make(chan struct{})
		go func() {
			s.g.GracefulStop()
			close(stopped)
		}()
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-stopped:
		case <-t.C:
			s.g.Stop()
			<-stopped
		}
		<-s.done
	})
	if s.err != nil && !errors.Is(s.err, grpc.ErrServerStopped) {
		return fmt.Errorf("server: serving %s: %w", s.Addr(), s.err)
	}
	return nil
}

// IsLoopback reports whether addr (host:port) names this machine only:
// localhost or a loopback IP. An empty host (every interface) is not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
