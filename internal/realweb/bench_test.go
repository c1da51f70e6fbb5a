package realweb

import (
	"fmt"
	"testing"
)

// BenchmarkOracle measures the oracle as the web grows 10x: its cost per
// page should stay flat.
func BenchmarkOracle(b *testing.B) {
	for _, pages := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			w, err := Start(Config{Seed: 1, Hosts: 10, Pages: pages / 10})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			for b.Loop() {
				w.runOracle()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pages), "ns/page")
		})
	}
}
