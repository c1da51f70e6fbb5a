package bigtable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	boptions "github.com/dgraph-io/badger/v4/options"
)

// The benchmarks run the same work on this package and on raw Badger in one
// loop, alternating, and report both times and their ratio (raw time over
// ours: 1.0 means as fast as Badger, 0.5 half as fast). Raw Badger gets the
// best configuration for 1000-byte values: the same value threshold (values
// in the value log), no compression, no sync; it stores one key per cell,
// the row key with a fixed column suffix. Every benchmark counts rows: b.N
// is the number of rows written or read, and the metrics are per row.
//
//	go test -run '^$' -bench . -benchmem -benchtime 20000x ./bigtable/

const (
	benchRows     = 20000
	benchValueLen = 1000
	benchBulk     = 500 // rows per ApplyBulk / WriteBatch
	benchPrefix   = 50  // rows per prefix in the prefix-scan dataset
)

type benchPair struct {
	db  *DB
	tbl *Table
	raw *badger.DB
	val []byte
}

func rawOptions(dir string) badger.Options {
	o := defaultOptions()
	return badger.DefaultOptions(dir).
		WithValueThreshold(o.valueThreshold).
		WithMemTableSize(o.memTableSize).
		WithBlockCacheSize(o.blockCacheSize).
		WithCompression(boptions.None).
		WithLogger(nil)
}

func newBenchPair(b *testing.B) *benchPair {
	b.Helper()
	db, err := Open(b.TempDir(), WithGCInterval(0))
	if err != nil {
		b.Fatal(err)
	}
	raw, err := badger.Open(rawOptions(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close(); raw.Close() })
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

func benchRowKey(i int) string {
	return fmt.Sprintf("com.site%04d.www/page%05d", i/benchPrefix, i%benchPrefix)
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
// flushes and compacts asynchronously), so neither side of the pair pays
// for the other's: every row is read once on both sides, then the Go heap
// is collected.
func (p *benchPair) settle(b *testing.B) {
	b.Helper()
	ctx := context.Background()
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

func (pt *pairTimer) report(b *testing.B) {
	pt.reportAs(b, "bigtable-ns/row", "badger-ns/row")
}

func (pt *pairTimer) reportAs(b *testing.B, oursUnit, rawUnit string) {
	n := float64(b.N)
	ours := float64(pt.ours.Nanoseconds()) / n
	raw := float64(pt.raw.Nanoseconds()) / n
	b.ReportMetric(ours, oursUnit)
	b.ReportMetric(raw, rawUnit)
	b.ReportMetric(raw/ours, "ratio")
	b.ReportMetric(0, "ns/op") // the pair's sum is meaningless
}

func BenchmarkApply(b *testing.B) {
	p := newBenchPair(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		row := benchRowKey(rng.IntN(benchRows * 10))
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
	pt.report(b)
}

// BenchmarkApplyBulk counts rows: each b.N is one row, written in bulks of
// benchBulk (ApplyBulk against a Badger WriteBatch).
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
	pt.report(b)
}

func BenchmarkReadRow(b *testing.B) {
	p := newBenchPair(b)
	p.load(b, benchRows)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	p.settle(b)
	var pt pairTimer
	var iter time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		row := benchRowKey(rng.IntN(benchRows))
		t0 := time.Now()
		r, err := p.tbl.ReadRow(ctx, row)
		if err != nil || len(r["contents"]) != 1 {
			b.Fatal(err, r)
		}
		t1 := time.Now()
		err = p.raw.View(func(txn *badger.Txn) error {
			item, err := txn.Get(rawKey(row))
			if err != nil {
				return err
			}
			_, err = item.ValueCopy(nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		// The same read as a prefix iteration, the way a raw Badger program
		// that does not know a row's columns must read it.
		// NB: another row, or Get would have warmed this one's caches.
		other := benchRowKey(rng.IntN(benchRows))
		err = p.raw.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(other + "\x00")})
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
		t3 := time.Now()
		pt.ours += t1.Sub(t0)
		pt.raw += t2.Sub(t1)
		iter += t3.Sub(t2)
	}
	pt.report(b)
	iterNs := float64(iter.Nanoseconds()) / float64(b.N)
	b.ReportMetric(iterNs, "badger-iter-ns/row")
	b.ReportMetric(iterNs/(float64(pt.ours.Nanoseconds())/float64(b.N)), "ratio-iter")
}

func BenchmarkReadRowsPrefix(b *testing.B) {
	p := newBenchPair(b)
	p.load(b, benchRows)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	p.settle(b)
	var pt pairTimer
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += benchPrefix {
		prefix := fmt.Sprintf("com.site%04d.www/", rng.IntN(benchRows/benchPrefix))
		t0 := time.Now()
		n := 0
		err := p.tbl.ReadRows(ctx, PrefixRange(prefix), func(r Row) bool {
			n += len(r["contents"][0].Value)
			return true
		})
		if err != nil || n != benchPrefix*benchValueLen {
			b.Fatal(err, n)
		}
		t1 := time.Now()
		n = 0
		err = p.raw.View(func(txn *badger.Txn) error {
			opts := badger.DefaultIteratorOptions
			opts.Prefix = []byte(prefix)
			opts.PrefetchSize = benchPrefix
			it := txn.NewIterator(opts)
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					return err
				}
				n += len(v)
			}
			return nil
		})
		if err != nil || n != benchPrefix*benchValueLen {
			b.Fatal(err, n)
		}
		t2 := time.Now()
		pt.ours += t1.Sub(t0)
		pt.raw += t2.Sub(t1)
	}
	pt.report(b)
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
	pt.reportAs(b, "anchor-ns/row", "full-ns/row")
}
