package server

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gbt "cloud.google.com/go/bigtable"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"cloud.google.com/go/bigtable/bttest"
	"github.com/webtable/webtable/bigtable"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
)

var benchRows = flag.Int("rows", 20000, "rows in the server benchmarks' table (1000-byte values)")

func benchKey(i int) string { return fmt.Sprintf("row%08d", i) }

// benchValue is the value of every benchmark cell.
var benchValue = make([]byte, 1000)

// goClient is the real Cloud Bigtable Go client on the server at addr.
func goClient(b *testing.B, addr string) *gbt.Table {
	b.Helper()
	c, err := gbt.NewClientWithConfig(context.Background(), "p", "i",
		gbt.ClientConfig{MetricsProvider: gbt.NoopMetricsProvider{}},
		option.WithGRPCConn(dial(b, addr)), option.WithoutAuthentication())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c.Open("t")
}

// oursAddr serves a store holding the benchmark rows.
func oursAddr(b *testing.B) string {
	db, srv := serve(b)
	newTable(b, db)
	if err := loadBenchRows(db.Open("t"), *benchRows); err != nil {
		b.Fatal(err)
	}
	return srv.Addr()
}

// loadBenchRows writes the benchmark rows into tbl.
func loadBenchRows(tbl *bigtable.Table, n int) error {
	const batch = 1000
	for i := 0; i < n; i += batch {
		var rows []string
		var muts []*bigtable.Mutation
		for j := i; j < min(i+batch, n); j++ {
			m := bigtable.NewMutation()
			m.Set("A", "q", 1000, benchValue)
			rows, muts = append(rows, benchKey(j)), append(muts, m)
		}
		if _, err := tbl.ApplyBulk(context.Background(), rows, muts); err != nil {
			return err
		}
	}
	return nil
}

// bttestAddr serves the benchmark rows from Google's in-memory emulator.
func bttestAddr(b *testing.B) string {
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	ctx := context.Background()
	admin, err := gbt.NewAdminClient(ctx, "p", "i", option.WithGRPCConn(dial(b, srv.Addr)), option.WithoutAuthentication())
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	if err := admin.CreateTable(ctx, "t"); err != nil {
		b.Fatal(err)
	}
	if err := admin.CreateColumnFamily(ctx, "t", "A"); err != nil {
		b.Fatal(err)
	}
	tbl := goClient(b, srv.Addr)
	const batch = 1000
	for i := 0; i < *benchRows; i += batch {
		var rows []string
		var muts []*gbt.Mutation
		for j := i; j < min(i+batch, *benchRows); j++ {
			m := gbt.NewMutation()
			m.Set("A", "q", 1000, benchValue)
			rows, muts = append(rows, benchKey(j)), append(muts, m)
		}
		if _, err := tbl.ApplyBulk(ctx, rows, muts); err != nil {
			b.Fatal(err)
		}
	}
	return srv.Addr
}

// noopServer answers ReadRows with responses encoded before the
// benchmark: the whole table for a scan, one row for a single key. It is
// the ceiling of what a server can do for the Go client over loopback.
type noopServer struct {
	btpb.UnimplementedBigtableServer
	scan []encoded
	rows map[string]encoded
}

func (s *noopServer) ReadRows(req *btpb.ReadRowsRequest, stream btpb.Bigtable_ReadRowsServer) error {
	if keys := req.GetRows().GetRowKeys(); len(keys) == 1 {
		return stream.SendMsg(s.rows[string(keys[0])])
	}
	for _, m := range s.scan {
		if err := stream.SendMsg(m); err != nil {
			return err
		}
	}
	return nil
}

// noopAddr serves the benchmark rows pre-encoded by the same chunker (the
// same responses ours sends).
func noopAddr(b *testing.B) string {
	g, lis, err := listenNoop(*benchRows)
	if err != nil {
		b.Fatal(err)
	}
	go g.Serve(lis)
	b.Cleanup(g.Stop)
	return lis.Addr().String()
}

// listenNoop makes the no-op server of n benchmark rows and its listener.
func listenNoop(n int) (*grpc.Server, net.Listener, error) {
	s := &noopServer{rows: map[string]encoded{}}
	var all chunker
	for i := range n {
		item := bigtable.ReadItem{Row: benchKey(i), Column: "A:q", Timestamp: 1000, Value: benchValue}
		r := bigtable.Row{"A": {item}}
		all.row(r)
		var one chunker
		one.row(r)
		s.rows[benchKey(i)] = unpooled(one.flush()[0])
	}
	for _, e := range all.flush() {
		s.scan = append(s.scan, unpooled(e))
	}
	g := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}))
	btpb.RegisterBigtableServer(g, s)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	return g, lis, err
}

// unpooled keeps an encoded message for sending many times.
func unpooled(e encoded) encoded { return encoded{buf: e.buf} }

var benchServers = []struct {
	name string
	addr func(*testing.B) string
}{{"noop", noopAddr}, {"bttest", bttestAddr}, {"ours", oursAddr}}

// BenchmarkScan reads the whole table with the Go client, from each
// server: rows/s is the figure to compare.
func BenchmarkScan(b *testing.B) {
	for _, s := range benchServers {
		b.Run(s.name, func(b *testing.B) {
			tbl := goClient(b, s.addr(b))
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				n := 0
				if err := tbl.ReadRows(ctx, gbt.InfiniteRange(""), func(gbt.Row) bool { n++; return true }); err != nil {
					b.Fatal(err)
				}
				if n != *benchRows {
					b.Fatalf("scan read %d rows, want %d", n, *benchRows)
				}
			}
			b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkReadRow reads random single rows with the Go client, from each
// server; the time per op is the latency; p50 and p99 are reported too.
func BenchmarkReadRow(b *testing.B) {
	for _, s := range benchServers {
		b.Run(s.name, func(b *testing.B) {
			tbl := goClient(b, s.addr(b))
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				key := benchKey(i * 7919 % *benchRows)
				start := time.Now()
				r, err := tbl.ReadRow(ctx, key)
				lat = append(lat, time.Since(start))
				if err != nil || r.Key() != key {
					b.Fatalf("ReadRow(%s) = %v, %v", key, r.Key(), err)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkScanSideBySide alternates full scans of the three servers, so
// that the machine's noise hits them alike, and reports each one's rows/s
// and ours against the others (1.0: as fast).
func BenchmarkScanSideBySide(b *testing.B) {
	ctx := context.Background()
	tbls := make([]*gbt.Table, len(benchServers))
	for i, s := range benchServers {
		tbls[i] = goClient(b, s.addr(b))
	}
	spent := make([]time.Duration, len(tbls))
	b.ResetTimer()
	for range b.N {
		for i, tbl := range tbls {
			start := time.Now()
			n := 0
			if err := tbl.ReadRows(ctx, gbt.InfiniteRange(""), func(gbt.Row) bool { n++; return true }); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(start)
			if n != *benchRows {
				b.Fatalf("%s: scan read %d rows, want %d", benchServers[i].name, n, *benchRows)
			}
		}
	}
	rate := func(i int) float64 { return float64(*benchRows) * float64(b.N) / spent[i].Seconds() }
	for i, s := range benchServers {
		b.ReportMetric(rate(i), s.name+"-rows/s")
	}
	ours := len(benchServers) - 1
	b.ReportMetric(rate(ours)/rate(0), "ours/noop")
	b.ReportMetric(rate(ours)/rate(1), "ours/bttest")
}

// BenchmarkReadRowSideBySide alternates point reads of the no-op server
// and ours and reports the median latency of each and their ratio.
func BenchmarkReadRowSideBySide(b *testing.B) {
	ctx := context.Background()
	servers := []int{0, len(benchServers) - 1} // noop, ours
	tbls := make([]*gbt.Table, len(servers))
	for i, s := range servers {
		tbls[i] = goClient(b, benchServers[s].addr(b))
	}
	lat := make([][]time.Duration, len(tbls))
	b.ResetTimer()
	for n := range b.N {
		key := benchKey(n * 7919 % *benchRows)
		for i, tbl := range tbls {
			start := time.Now()
			r, err := tbl.ReadRow(ctx, key)
			lat[i] = append(lat[i], time.Since(start))
			if err != nil || r.Key() != key {
				b.Fatalf("ReadRow(%s) = %v, %v", key, r.Key(), err)
			}
		}
	}
	med := make([]float64, len(lat))
	for i, l := range lat {
		sort.Slice(l, func(a, c int) bool { return l[a] < l[c] })
		med[i] = float64(l[len(l)/2].Nanoseconds()) / 1e3
		b.ReportMetric(med[i], benchServers[servers[i]].name+"-p50-µs")
	}
	b.ReportMetric(med[1]/med[0], "ours/noop-latency")
}

// The servers of BenchmarkScanSeparateProcesses run in child processes of
// the test binary, as a crawl --serve does beside its clients: this
// environment variable names the server to run ("ours" or "noop").
const benchServerEnv = "WEBTABLE_BENCH_SERVER"

func TestMain(m *testing.M) {
	if kind := os.Getenv(benchServerEnv); kind != "" {
		if err := runBenchServer(kind); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runBenchServer serves the benchmark rows, prints the address, and serves
// until its standard input closes. With WEBTABLE_BENCH_SERVER_CPUPROFILE
// set to a file name it writes the server process's CPU profile there
// (go test -bench ScanSeparateProcesses passes -cpuprofile's value on).
func runBenchServer(kind string) error {
	n, err := strconv.Atoi(os.Getenv(benchServerEnv + "_ROWS"))
	if err != nil {
		return err
	}
	if name := os.Getenv(benchServerEnv + "_CPUPROFILE"); name != "" && kind == "ours" {
		f, err := os.Create(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var addr string
	var stop func()
	switch kind {
	case "noop":
		g, lis, err := listenNoop(n)
		if err != nil {
			return err
		}
		go g.Serve(lis)
		addr, stop = lis.Addr().String(), g.Stop
	default:
		dir, err := os.MkdirTemp("", "webtable-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db, err := bigtable.Open(dir)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx := context.Background()
		if err := db.CreateTable(ctx, "t"); err != nil {
			return err
		}
		if err := db.CreateColumnFamily(ctx, "t", "A"); err != nil {
			return err
		}
		if err := loadBenchRows(db.Open("t"), n); err != nil {
			return err
		}
		srv, err := Listen(db, "127.0.0.1:0")
		if err != nil {
			return err
		}
		addr, stop = srv.Addr(), func() { srv.Close(time.Second) }
	}
	fmt.Println(addr)
	io.Copy(io.Discard, os.Stdin)
	stop()
	return nil
}

// startBenchServer runs a server of the given kind in a child process.
func startBenchServer(b *testing.B, kind string) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchServerEnv+"="+kind, fmt.Sprintf("%s_ROWS=%d", benchServerEnv, *benchRows))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("%s server: %v", kind, err)
	}
	return strings.TrimSpace(line)
}

// BenchmarkScanSeparateProcesses is BenchmarkScanSideBySide with each
// server in its own process, as a crawl serves its store to clients of
// other processes: the server's allocations and goroutines no longer
// burden the client's.
func BenchmarkScanSeparateProcesses(b *testing.B) {
	ctx := context.Background()
	kinds := []string{"noop", "ours"}
	tbls := make([]*gbt.Table, len(kinds))
	for i, k := range kinds {
		tbls[i] = goClient(b, startBenchServer(b, k))
	}
	spent := make([]time.Duration, len(tbls))
	b.ResetTimer()
	for range b.N {
		for i, tbl := range tbls {
			start := time.Now()
			n := 0
			if err := tbl.ReadRows(ctx, gbt.InfiniteRange(""), func(gbt.Row) bool { n++; return true }); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(start)
			if n != *benchRows {
				b.Fatalf("%s: scan read %d rows, want %d", kinds[i], n, *benchRows)
			}
		}
	}
	rate := func(i int) float64 { return float64(*benchRows) * float64(b.N) / spent[i].Seconds() }
	b.ReportMetric(rate(0), "noop-rows/s")
	b.ReportMetric(rate(1), "ours-rows/s")
	b.ReportMetric(rate(1)/rate(0), "ours/noop")
}
