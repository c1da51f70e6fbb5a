package fanout

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// pieces of 100 rows each: piece i yields i*100 .. i*100+99.
func readPiece(ctx context.Context, i int, emit func(int) bool) error {
	for r := i * 100; r < (i+1)*100; r++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !emit(r) {
			return nil
		}
	}
	return nil
}

func TestRunAll(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 50} {
		var mu sync.Mutex
		seen := map[int]bool{}
		err := Run(context.Background(), 10, workers, -1, func(r int) bool {
			mu.Lock()
			defer mu.Unlock()
			if seen[r] {
				t.Errorf("row %d twice", r)
			}
			seen[r] = true
			return true
		}, readPiece)
		if err != nil || len(seen) != 1000 {
			t.Fatalf("workers %d: %v, %d rows, want nil, 1000", workers, err, len(seen))
		}
	}
}

func TestRunLimit(t *testing.T) {
	for _, limit := range []int64{0, 1, 99, 100, 101, 999, 1000, 5000} {
		var n atomic.Int64
		err := Run(context.Background(), 10, 3, limit, func(int) bool { n.Add(1); return true }, readPiece)
		if want := min(limit, 1000); err != nil || n.Load() != want {
			t.Fatalf("limit %d: %v, %d rows, want nil, %d", limit, err, n.Load(), want)
		}
	}
}

func TestRunStop(t *testing.T) {
	var n atomic.Int64
	err := Run(context.Background(), 10, 3, -1, func(int) bool { return n.Add(1) < 150 }, readPiece)
	if err != nil || n.Load() < 150 || n.Load() > 150+3 {
		t.Fatalf("%v after %d rows; want nil after 150 to 153 (one call under way per worker)", err, n.Load())
	}
}

func TestRunError(t *testing.T) {
	boom := errors.New("boom")
	err := Run(context.Background(), 10, 3, -1, func(int) bool { return true },
		func(ctx context.Context, i int, emit func(int) bool) error {
			if i == 4 {
				return boom
			}
			return readPiece(ctx, i, emit)
		})
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want boom", err)
	}
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	err := Run(ctx, 10, 3, -1, func(int) bool {
		if n.Add(1) == 10 {
			cancel()
		}
		return true
	}, readPiece)
	if !errors.Is(err, context.Canceled) || n.Load() >= 1000 {
		t.Fatalf("Run = %v after %d rows, want context.Canceled before the end", err, n.Load())
	}
}
