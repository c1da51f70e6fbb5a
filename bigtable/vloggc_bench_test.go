package bigtable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// BenchmarkApplyDuringValueLogGC measures Apply (one 2 KiB cell, the row's
// older version pruned) while a goroutine runs value log GC in a loop, on
// small value log files so that GC rewrites files all along:
//   - gc=off: no GC, the baseline;
//   - gc=unguarded: Badger's RunValueLogGC called directly, as GC did before
//     it kept writes out (racy: Badger reads a memtable's highest version
//     unlocked; do not run it with -race);
//   - gc=guarded: (*DB).GC, which holds writes off while a file is rewritten.
//
// It reports the writes' 99th percentile latency and the value log files
// GC removed. Run it as
//
//	go test -run '^$' -bench ApplyDuringValueLogGC -benchtime 20000x -count 3 ./bigtable/
func BenchmarkApplyDuringValueLogGC(b *testing.B) {
	for _, mode := range []string{"off", "unguarded", "guarded"} {
		b.Run("gc="+mode, func(b *testing.B) {
			if mode == "unguarded" && raceEnabled {
				b.Skip("unguarded value log GC races with writes")
			}
			db := openTestDB(b, WithValueThreshold(64), WithValueLogFileSize(1<<20), WithMemTableSize(64<<10), WithGCInterval(0))
			tbl := db.mustTable("t", "f")
			ctx := context.Background()
			if err := db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(1)); err != nil {
				b.Fatal(err)
			}
			stop := make(chan struct{})
			var gcWg sync.WaitGroup
			if mode != "off" {
				gcWg.Go(func() { loopValueLogGC(b, db.DB, mode == "guarded", stop) })
			}
			value := []byte(strings.Repeat("v", 2<<10))
			var seq atomic.Int64
			var mu sync.Mutex
			var lat []time.Duration
			first := lowestVlog(b, db.dir)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					n := seq.Add(1)
					m := NewMutation()
					m.Set("f", "c", Timestamp(n*1000), value)
					t0 := time.Now()
					if err := tbl.Apply(ctx, fmt.Sprintf("r%03d", n%256), m); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			b.StopTimer()
			close(stop)
			gcWg.Wait()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			}
			b.ReportMetric(float64(lowestVlog(b, db.dir)-first), "vlog-files-removed")
		})
	}
}

// loopValueLogGC runs value log GC until stop is closed: (*DB).GC when
// guarded, else Badger's RunValueLogGC alone.
func loopValueLogGC(b *testing.B, db *DB, guarded bool, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		var err error
		if guarded {
			err = db.GC(context.Background())
		} else if err = db.bdb.RunValueLogGC(0.5); errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
			err = nil
		}
		if err != nil {
			b.Error(err)
			return
		}
	}
}
