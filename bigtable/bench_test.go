package bigtable

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// The benchmarks run the same work on this package and on raw Badger in one
// loop, alternating, and report both times and their ratio (raw time over
// ours: 1.0 means as fast as Badger, 0.5 half as fast). Raw Badger runs at
// its best for 1000-byte values, as ../shared/bench/compare.sh found it:
// Badger's defaults (Snappy compression, conflict detection) with values of
// 64 bytes and more in the value log, a 64 MiB block cache (ours has none by
// default, so raw Badger never has less memory), the same memtables, no
// sync; it stores one key per cell, the row key with a fixed column suffix.
// Every benchmark counts rows: b.N is the number of rows written or read,
// and the metrics are per row. After the run, TestMain prints the ratios as
// a table.
//
//	go test -run '^$' -bench . -benchmem ./bigtable/
//
// Raw scans read each value in the loop (PrefetchValues false), which beats
// Badger's default of a goroutine per prefetched value by 1.3-1.9x for
// these values; -prefetch compares with the default instead.
//
// The read benchmarks share one dataset of -rows rows (20,000 by default,
// loaded once); the sizes are 200,000 and 1,000,000 (1 GB of values),
// run as, for example:
//
//	go test -run '^$' -bench . -benchmem -benchtime 200000x -timeout 60m ./bigtable/ -rows 1000000
//
// BenchmarkMemory (only with -rows of 200,000 or more) ingests -rows rows
// into this package alone and then scans them, reporting the peak Go heap
// and the peak resident set size of the process.

var laptopFlag = flag.Bool("laptop", false, "BenchmarkMemory opens the store with the laptop sizing of doc.go")

var benchRowsFlag = flag.Int("rows", 20000, "rows of 1000-byte values in the read benchmarks' dataset and BenchmarkMemory")

const (
	benchValueLen = 1000
	benchBulk     = 500 // rows per ApplyBulk / WriteBatch
	benchPrefix   = 50  // rows per prefix in the prefix-scan dataset
)

func benchRows() int { return *benchRowsFlag }

func TestMain(m *testing.M) {
	code := m.Run()
	printRatios(os.Stdout)
	removeShared()
	os.Exit(code)
}

// A benchResult is the last report of one benchmark, for the ratio table.
type benchResult struct {
	name         string
	ours, raw    float64 // ns per row
	target, note string
}

var (
	resultsMu sync.Mutex
	results   []benchResult
)

func record(r benchResult) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	for i := range results {
		if results[i].name == r.name {
			results[i] = r
			return
		}
	}
	results = append(results, r)
}

func printRatios(w *os.File) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(w, "\nbigtable beside raw Badger, read dataset %d rows of %d-byte values, GOMAXPROCS %d\n",
		benchRows(), benchValueLen, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "ratio = Badger's time / ours (1.00 = as fast; higher is better)\n\n")
	fmt.Fprintf(w, "%-18s %14s %14s %7s %8s  %s\n", "benchmark", "bigtable ns/row", "badger ns/row", "ratio", "target", "compared with")
	for _, r := range results {
		fmt.Fprintf(w, "%-18s %14.0f %14.0f %7.2f %8s  %s\n", r.name, r.ours, r.raw, r.raw/r.ours, r.target, r.note)
	}
	fmt.Fprintln(w)
}

// sharedDirs are removed by TestMain after the run.
var (
	sharedMu   sync.Mutex
	sharedDirs []string
	shared     = map[int]*benchPair{}
)

func removeShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for _, p := range shared {
		p.db.Close()
		p.raw.Close()
	}
	for _, d := range sharedDirs {
		os.RemoveAll(d)
	}
}

type benchPair struct {
	db  *DB
	tbl *Table
	raw *badger.DB
	val []byte
}

// rawOptions is raw Badger at its best for these rows (see the top of the
// file), not set up like this package.
func rawOptions(dir string) badger.Options {
	o := defaultOptions()
	return badger.DefaultOptions(dir).
		WithValueThreshold(64).
		WithMemTableSize(o.memTableSize).
		WithNumMemtables(o.numMemtables).
		WithBlockCacheSize(max(o.blockCacheSize, 64<<20)).
		WithLogger(nil)
}

func openBenchPair(b *testing.B, dir1, dir2 string, opts ...Option) *benchPair {
	b.Helper()
	db, err := Open(dir1, append([]Option{WithGCInterval(0)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := badger.Open(rawOptions(dir2))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := db.CreateTable(ctx, "webtable"); err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{"contents", "anchor"} {
		if err := db.CreateColumnFamily(ctx, "webtable", f); err != nil {
			b.Fatal(err)
		}
	}
	val := make([]byte, benchValueLen)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range val {
		val[i] = byte(rng.Uint32())
	}
	return &benchPair{db: db, tbl: db.Open("webtable"), raw: raw, val: val}
}

// newBenchPair opens an empty pair for one benchmark.
func newBenchPair(b *testing.B, opts ...Option) *benchPair {
	b.Helper()
	p := openBenchPair(b, b.TempDir(), b.TempDir(), opts...)
	b.Cleanup(func() { p.db.Close(); p.raw.Close() })
	return p
}

// sharedPair returns the pair holding the read dataset of n rows, loading
// it on first use. Its tablets split at n/8 rows' worth of bytes (at most
// the default 128 MiB), so that ReadRowsParallel has tablets to share out.
func sharedPair(b *testing.B, n int) *benchPair {
	b.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if p := shared[n]; p != nil {
		return p
	}
	d1, err := os.MkdirTemp("", "bigtable-bench-")
	if err != nil {
		b.Fatal(err)
	}
	d2, err := os.MkdirTemp("", "badger-bench-")
	if err != nil {
		b.Fatal(err)
	}
	sharedDirs = append(sharedDirs, d1, d2)
	split := min(int64(n)*(benchValueLen+60)/8, DefaultTabletSplitSize)
	p := openBenchPair(b, d1, d2, WithTabletSplitSize(split))
	t0 := time.Now()
	p.load(b, n)
	p.settle(b)
	b.Logf("loaded %d rows into both stores in %v", n, time.Since(t0).Round(time.Millisecond))
	shared[n] = p
	return p
}

var prefetchFlag = flag.Bool("prefetch", false, "raw Badger's scans prefetch values (Badger's default; slower here)")

func prefetchNote() string {
	if *prefetchFlag {
		return ", values prefetched"
	}
	return ", ValueCopy per key"
}

// rawScanOptions are the iterator options of raw Badger's scans. Badger's
// default, PrefetchValues, starts a goroutine per item to read its value;
// for 1000-byte values in the page cache, reading each value in the loop
// is faster, so that is the baseline.
func rawScanOptions() badger.IteratorOptions {
	if *prefetchFlag {
		return badger.DefaultIteratorOptions
	}
	return badger.IteratorOptions{PrefetchValues: false, PrefetchSize: 100}
}

func benchRowKey(i int) string {
	return fmt.Sprintf("com.site%05d.www/page%05d", i/benchPrefix, i%benchPrefix)
}

func rawKey(row string) []byte { return []byte(row + "\x00contents:") }

// load writes n rows to both stores.
func (p *benchPair) load(b *testing.B, n int) {
	b.Helper()
	ctx := context.Background()
	wb := p.raw.NewWriteBatch()
	for start := 0; start < n; start += benchBulk {
		var rows []string
		var muts []*Mutation
		for i := start; i < min(n, start+benchBulk); i++ {
			m := NewMutation()
			m.Set("contents", "", 1, p.val)
			rows = append(rows, benchRowKey(i))
			muts = append(muts, m)
			if err := wb.Set(rawKey(benchRowKey(i)), p.val); err != nil {
				b.Fatal(err)
			}
		}
		if errs, err := p.tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
			b.Fatal(err, errs)
		}
	}
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
}

// settle lets both stores finish background work after a load (Badger
// flushes and compacts asynchronously, this package splits tablets), so
// neither side of the pair pays for the other's: every row is read once on
// both sides, then the Go heap is collected.
func (p *benchPair) settle(b *testing.B) {
	b.Helper()
	ctx := context.Background()
	if err := p.db.splitTablets(ctx); err != nil {
		b.Fatal(err)
	}
	if err := p.tbl.ReadRows(ctx, InfiniteRange(""), func(Row) bool { return true }); err != nil {
		b.Fatal(err)
	}
	err := p.raw.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if _, err := it.Item().ValueCopy(nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
}

// pairTimer accumulates the two sides' times and reports them.
type pairTimer struct{ ours, raw time.Duration }

func (pt *pairTimer) report(b *testing.B, target, note string) {
	pt.reportAs(b, "bigtable-ns/row", "badger-ns/row", target, note)
}

func (pt *pairTimer) reportAs(b *testing.B, oursUnit, rawUnit, target, note string) {
	n := float64(b.N)
	ours := float64(pt.ours.Nanoseconds()) / n
	raw := float64(pt.raw.Nanoseconds()) / n
	b.ReportMetric(ours, oursUnit)
	b.ReportMetric(raw, rawUnit)
	b.ReportMetric(raw/ours, "ratio")
	b.ReportMetric(0, "ns/op") // the pair's sum is meaningless
	name := strings.TrimPrefix(b.Name(), "Benchmark")
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[:i]
	}
	record(benchResult{name: name, ours: ours, raw: raw, target: target, note: note})
}

func BenchmarkApply(b *testing.B) {
	p := newBenchPair(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		row := benchRowKey(rng.IntN(200000))
		t0 := time.Now()
		m := NewMutation()
		m.Set("contents", "", 1, p.val)
		if err := p.tbl.Apply(ctx, row, m); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := p.raw.Update(func(txn *badger.Txn) error { return txn.Set(rawKey(row), p.val) }); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		pt.ours += t1.Sub(t0)
		pt.raw += t2.Sub(t1)
	}
	pt.report(b, ">=0.80", "Txn.Set+Commit per row")
}

// BenchmarkApplyBulk counts rows: each b.N is one row, written in bulks of
// benchBulk (ApplyBulk against a Badger WriteBatch), into empty stores.
func BenchmarkApplyBulk(b *testing.B) {
	p := newBenchPair(b)
	ctx := context.Background()
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += benchBulk {
		n := min(benchBulk, b.N-done)
		rows := make([]string, n)
		muts := make([]*Mutation, n)
		for i := range rows {
			rows[i] = benchRowKey(done + i)
			muts[i] = NewMutation()
			muts[i].Set("contents", "", 1, p.val)
		}
		t0 := time.Now()
		if errs, err := p.tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
			b.Fatal(err, errs)
		}
		t1 := time.Now()
		wb := p.raw.NewWriteBatch()
		for _, r := range rows {
			if err := wb.Set(rawKey(r), p.val); err != nil {
				b.Fatal(err)
			}
		}
		if err := wb.Flush(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		pt.ours += t1.Sub(t0)
		pt.raw += t2.Sub(t1)
	}
	pt.report(b, ">=0.85", "WriteBatch of 500 rows")
}

// readRowPair runs BenchmarkReadRow and BenchmarkReadRowIter: ours, a
// ReadRow of a random row, against raw, the same read on raw Badger.
func readRowPair(b *testing.B, raw func(p *benchPair, row string) error, target, note string) {
	n := benchRows()
	p := sharedPair(b, n)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	ours := func(row string) error {
		r, err := p.tbl.ReadRow(ctx, row)
		if err == nil && len(r["contents"]) != 1 {
			err = fmt.Errorf("read %v", r)
		}
		return err
	}
	reads := []func(string) error{ours, func(row string) error { return raw(p, row) }}
	var took [2]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// NB: each read gets its own random row, or the first would warm
		// the caches of the other, and the order alternates, so that
		// neither always follows the other (a read pays for the garbage
		// and the cache misses of the one before it).
		for k := range 2 {
			j := (i + k) % 2
			row := benchRowKey(rng.IntN(n))
			t0 := time.Now()
			if err := reads[j](row); err != nil {
				b.Fatal(err)
			}
			took[j] += time.Since(t0)
		}
	}
	pt := pairTimer{ours: took[0], raw: took[1]}
	pt.report(b, target, note)
}

// BenchmarkReadRow compares ReadRow with a raw Badger Get of the row's one
// key, which only a program that knows the row's columns can do.
func BenchmarkReadRow(b *testing.B) {
	readRowPair(b, func(p *benchPair, row string) error {
		return p.raw.View(func(txn *badger.Txn) error {
			item, err := txn.Get(rawKey(row))
			if err != nil {
				return err
			}
			_, err = item.ValueCopy(nil)
			return err
		})
	}, ">=0.80", "Txn.Get+ValueCopy (exact key)")
}

// BenchmarkReadRowIter compares ReadRow with the same read as a raw Badger
// prefix iteration, the way a program that does not know a row's columns
// must read it.
func BenchmarkReadRowIter(b *testing.B) {
	readRowPair(b, func(p *benchPair, row string) error {
		return p.raw.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(row + "\x00")})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				if _, err := it.Item().ValueCopy(nil); err != nil {
					return err
				}
			}
			return nil
		})
	}, "", "prefix iterator of the row")
}

func BenchmarkReadRowsPrefix(b *testing.B) {
	n := benchRows()
	p := sharedPair(b, n)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += benchPrefix {
		prefix := fmt.Sprintf("com.site%05d.www/", rng.IntN(n/benchPrefix))
		t0 := time.Now()
		got := 0
		err := p.tbl.ReadRows(ctx, PrefixRange(prefix), func(r Row) bool {
			got += len(r["contents"][0].Value)
			return true
		})
		if err != nil || got != benchPrefix*benchValueLen {
			b.Fatal(err, got)
		}
		t1 := time.Now()
		got = 0
		err = p.raw.View(func(txn *badger.Txn) error {
			opts := rawScanOptions()
			opts.Prefix = []byte(prefix)
			it := txn.NewIterator(opts)
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					return err
				}
				got += len(v)
			}
			return nil
		})
		if err != nil || got != benchPrefix*benchValueLen {
			b.Fatal(err, got)
		}
		t2 := time.Now()
		pt.ours += t1.Sub(t0)
		pt.raw += t2.Sub(t1)
	}
	pt.report(b, ">=0.80", "prefix iterator"+prefetchNote())
}

// scanRows reads up to limit rows from the start of the table on both
// sides, values included, and returns the times.
func (p *benchPair) scanRows(b *testing.B, limit int) (ours, raw time.Duration) {
	ctx := context.Background()
	t0 := time.Now()
	got := 0
	err := p.tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool {
		got += len(r["contents"][0].Value)
		return true
	}, LimitRows(int64(limit)))
	if err != nil || got != limit*benchValueLen {
		b.Fatal(err, got)
	}
	t1 := time.Now()
	got = 0
	err = p.raw.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(rawScanOptions())
		defer it.Close()
		n := 0
		for it.Rewind(); it.Valid() && n < limit; it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			got += len(v)
			n++
		}
		return nil
	})
	if err != nil || got != limit*benchValueLen {
		b.Fatal(err, got)
	}
	return t1.Sub(t0), time.Since(t1)
}

// BenchmarkScan reads the whole table in key order, values included, as
// often as b.N rows take.
func BenchmarkScan(b *testing.B) {
	benchScan(b, DefaultReadAhead, "; ours reads ahead (2 goroutines)")
}

// BenchmarkScanOneGoroutine is BenchmarkScan with read-ahead off: the cost
// of a row on one core, where the Row map that the Cloud Bigtable API
// hands out per row (two allocations) is most of the difference.
func BenchmarkScanOneGoroutine(b *testing.B) {
	benchScan(b, 0, "; both on one goroutine")
}

// benchScan runs the full-scan pair with the given read-ahead.
func benchScan(b *testing.B, readAhead int, note string) {
	n := benchRows()
	p := sharedPair(b, n)
	defer func(v int) { p.db.opts.readAhead = v }(p.db.opts.readAhead)
	p.db.opts.readAhead = readAhead
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		ours, raw := p.scanRows(b, min(n, b.N-done))
		pt.ours += ours
		pt.raw += raw
	}
	target := ""
	if readAhead > 0 {
		target = ">=0.80"
	}
	pt.report(b, target, "iterator over all keys"+prefetchNote()+note)
}

// BenchmarkScanParallel reads the whole table with ReadRowsParallel, one
// goroutine per tablet up to GOMAXPROCS, against the same single-threaded
// raw scan as BenchmarkScan.
func BenchmarkScanParallel(b *testing.B) {
	n := benchRows()
	p := sharedPair(b, n)
	ctx := context.Background()
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		limit := min(n, b.N-done)
		t0 := time.Now()
		var got atomic.Int64
		err := p.tbl.ReadRowsParallel(ctx, InfiniteRange(""), func(r Row) bool {
			got.Add(int64(len(r["contents"][0].Value)))
			return true
		}, LimitRows(int64(limit)))
		if err != nil || got.Load() != int64(limit*benchValueLen) {
			b.Fatal(err, got.Load())
		}
		ours := time.Since(t0)
		_, raw := p.scanRows(b, limit)
		pt.ours += ours
		pt.raw += raw
	}
	tablets, _ := p.db.Tablets(ctx, "webtable")
	pt.report(b, "", fmt.Sprintf("the Scan iterator; ours on %d tablets", len(tablets)))
}

// BenchmarkScanSmallFamily scans the anchor family of rows that also hold
// 100 KB contents, against the same scan reading the contents too: the
// ratio is how much cheaper it is not to read the large values (not a
// comparison with raw Badger).
func BenchmarkScanSmallFamily(b *testing.B) {
	p := newBenchPair(b)
	ctx := context.Background()
	big := make([]byte, 100<<10)
	const rows = 500
	for start := 0; start < rows; start += 50 {
		var keys []string
		var muts []*Mutation
		for i := start; i < start+50; i++ {
			m := NewMutation()
			m.Set("contents", "", 1, big)
			m.Set("anchor", "com.example/", 1, []byte("link text"))
			keys = append(keys, benchRowKey(i))
			muts = append(muts, m)
		}
		if errs, err := p.tbl.ApplyBulk(ctx, keys, muts); err != nil || errs != nil {
			b.Fatal(err, errs)
		}
	}
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += rows {
		t0 := time.Now()
		n := 0
		if err := p.tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool { n += len(r["anchor"]); return true },
			RowFilter(FamilyFilter("anchor"))); err != nil || n != rows {
			b.Fatal(err, n)
		}
		t1 := time.Now()
		n = 0
		if err := p.tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool { n += len(r["contents"]); return true }); err != nil || n != rows {
			b.Fatal(err, n)
		}
		t2 := time.Now()
		pt.ours += t1.Sub(t0)
		pt.raw += t2.Sub(t1)
	}
	pt.reportAs(b, "anchor-ns/row", "full-ns/row", ">=10", "ours reading the 100 KB contents too (not Badger)")
}

// BenchmarkMemory ingests -rows rows of 1000-byte values into this package
// alone with ApplyBulk, then scans them with ReadRows, and reports the peak
// Go heap (sampled every 50ms) and the peak resident set size of the process
// (VmHWM, reset before each phase) of each phase. It runs only with -rows of
// 200,000 or more, and does its work once whatever b.N is (the figures are
// per run, not per op).
func BenchmarkMemory(b *testing.B) {
	n := benchRows()
	if n < 200000 {
		b.Skip("run with -rows 200000 or more")
	}
	memOnce.Do(func() { memMetrics = measureMemory(b, n) })
	for _, m := range memMetrics {
		b.ReportMetric(m.v, m.unit)
	}
	b.ReportMetric(0, "ns/op")
}

type metric struct {
	v    float64
	unit string
}

var (
	memOnce    sync.Once
	memMetrics []metric
)

func measureMemory(b *testing.B, n int) []metric {
	opts := []Option{WithGCInterval(0)}
	if *laptopFlag {
		opts = append(opts, WithMemTableSize(32<<20), WithNumMemtables(2), WithBlockCacheSize(32<<20))
	}
	db, err := Open(b.TempDir(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	db.CreateTable(ctx, "webtable")
	db.CreateColumnFamily(ctx, "webtable", "contents")
	tbl := db.Open("webtable")
	val := bytes.Repeat([]byte{0x5a}, benchValueLen)
	runtime.GC()
	m := startMemWatch()
	t0 := time.Now()
	rows := make([]string, benchBulk)
	muts := make([]*Mutation, benchBulk)
	for start := 0; start < n; start += benchBulk {
		k := min(benchBulk, n-start)
		for i := range k {
			rows[i] = benchRowKey(start + i)
			muts[i] = NewMutation()
			muts[i].Set("contents", "", 1, val)
		}
		if errs, err := tbl.ApplyBulk(ctx, rows[:k], muts[:k]); err != nil || errs != nil {
			b.Fatal(err, errs)
		}
	}
	ingest := time.Since(t0)
	heapIngest, rssIngest, anonIngest := m.stop()
	runtime.GC()
	m = startMemWatch()
	t0 = time.Now()
	got := 0
	if err := tbl.ReadRows(ctx, InfiniteRange(""), func(r Row) bool { got++; return true }); err != nil || got != n {
		b.Fatal(err, got)
	}
	scan := time.Since(t0)
	heapScan, rssScan, anonScan := m.stop()
	tablets, _ := db.Tablets(ctx, "webtable")
	b.Logf("ingest of %d rows: %v, peak heap %d MiB, peak RSS %d MiB (anonymous %d MiB); scan: %v, peak heap %d MiB, peak RSS %d MiB (anonymous %d MiB); %d tablets",
		n, ingest.Round(time.Millisecond), heapIngest>>20, rssIngest>>20, anonIngest>>20,
		scan.Round(time.Millisecond), heapScan>>20, rssScan>>20, anonScan>>20, len(tablets))
	return []metric{
		{float64(heapIngest) / (1 << 20), "ingest-peak-heap-MiB"},
		{float64(rssIngest) / (1 << 20), "ingest-peak-rss-MiB"},
		{float64(anonIngest) / (1 << 20), "ingest-peak-anon-MiB"},
		{float64(heapScan) / (1 << 20), "scan-peak-heap-MiB"},
		{float64(rssScan) / (1 << 20), "scan-peak-rss-MiB"},
		{float64(anonScan) / (1 << 20), "scan-peak-anon-MiB"},
		{float64(ingest.Nanoseconds()) / float64(n), "ingest-ns/row"},
		{float64(scan.Nanoseconds()) / float64(n), "scan-ns/row"},
		{float64(len(tablets)), "tablets"},
	}
}

// memWatch samples the Go heap until stopped.
type memWatch struct {
	stopC chan struct{}
	done  chan struct{}
	peak  uint64
	anon  uint64 // peak RssAnon: resident memory not backed by files
}

func startMemWatch() *memWatch {
	// Writing 5 to clear_refs resets the peak RSS (VmHWM) of the process.
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	m := &memWatch{stopC: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.peak = max(m.peak, ms.HeapInuse)
			m.anon = max(m.anon, procStatus("RssAnon:"))
			select {
			case <-m.stopC:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

// stop returns the peak heap in use, the peak RSS and the peak anonymous
// RSS (sampled), in bytes.
func (m *memWatch) stop() (heap, rss, anon uint64) {
	close(m.stopC)
	<-m.done
	return m.peak, procStatus("VmHWM:"), m.anon
}

// procStatus returns a figure of /proc/self/status in bytes.
func procStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
