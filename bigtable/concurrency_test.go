package bigtable

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"
)

// TestConcurrentReadModifyWrite: concurrent increments of one cell lose no update.
func TestConcurrentReadModifyWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "n", "log")
	const workers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				m := NewReadModifyWrite()
				m.Increment("n", "count", 1)
				m.AppendValue("log", "w", []byte{byte('a' + w)})
				if _, err := tbl.ApplyReadModifyWrite(ctx, "row", m); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r, err := tbl.ReadRow(ctx, "row", RowFilter(LatestNFilter(1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(binary.BigEndian.Uint64(r["n"][0].Value)); got != workers*each {
		t.Errorf("counter = %d, want %d", got, workers*each)
	}
	if got := len(r["log"][0].Value); got != workers*each {
		t.Errorf("appended %d bytes, want %d", got, workers*each)
	}
}

// TestConcurrentApply: writers of one row's columns, conditional mutations
// claiming a row once, and readers never seeing half a mutation.
func TestConcurrentApply(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "f", "claim")
	const workers, each = 6, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	claims := map[string]int{}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m := NewMutation()
				// Two cells that must always be seen together.
				v := []byte(fmt.Sprintf("%d-%d", w, i))
				m.Set("f", fmt.Sprintf("a%d", w), Timestamp(i+1), v)
				m.Set("f", fmt.Sprintf("b%d", w), Timestamp(i+1), v)
				if err := tbl.Apply(ctx, "shared", m); err != nil {
					t.Error(err)
					return
				}
				// Check-and-set: only the first claimer of a row wins.
				row := fmt.Sprintf("job%d", i)
				matched := true
				cm := NewCondMutation(FamilyFilter("claim"), nil, set("claim", "by", 1, fmt.Sprint(w)))
				if err := tbl.Apply(ctx, row, cm, GetCondMutationResult(&matched)); err != nil {
					t.Error(err)
					return
				}
				if !matched {
					mu.Lock()
					claims[row]++
					mu.Unlock()
				}
				r, err := tbl.ReadRow(ctx, "shared", RowFilter(LatestNFilter(1)))
				if err != nil {
					t.Error(err)
					return
				}
				for x := range workers {
					var a, b string
					for _, it := range r["f"] {
						switch it.Column {
						case fmt.Sprintf("f:a%d", x):
							a = string(it.Value)
						case fmt.Sprintf("f:b%d", x):
							b = string(it.Value)
						}
					}
					if a != b {
						t.Errorf("torn read of writer %d: a=%q b=%q", x, a, b)
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range each {
		if n := claims[fmt.Sprintf("job%d", i)]; n != 1 {
			t.Errorf("job%d claimed %d times, want once", i, n)
		}
	}
	r, _ := tbl.ReadRow(ctx, "shared")
	if got := len(r["f"]); got != 2*workers*each {
		t.Errorf("shared row holds %d cells, want %d", got, 2*workers*each)
	}
}

// TestConcurrentPlainWritersOfOneColumn: plain writes of one row share its
// lock, so writers of one column of a one-version family prune it
// concurrently, in bulk and one at a time, beside conditional mutations
// of the same row. Reads never see a second version or a torn mutation,
// the newest timestamp wins, and GC leaves one cell per column on disk.
func TestConcurrentPlainWritersOfOneColumn(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f", "claim")
	if err := db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(1)); err != nil {
		t.Fatal(err)
	}
	const workers, each = 6, 60
	var g errgroup.Group
	var claimed sync.Map
	for w := range workers {
		g.Go(func() error {
			for i := range each {
				ts := Timestamp(i*workers + w + 1) // distinct, interleaved
				v := []byte(fmt.Sprint(ts))
				m := NewMutation()
				m.Set("f", "hot", ts, v)
				m.Set("f", "twin", ts, v) // always seen with hot's value
				var err error
				if i%2 == 0 {
					err = tbl.Apply(ctx, "row", m)
				} else {
					var errs []error
					errs, err = tbl.ApplyBulk(ctx, []string{"row", "other"}, []*Mutation{m, set("f", "x", ts, "y")})
					err = errors.Join(err, errors.Join(errs...))
				}
				if err != nil {
					return err
				}
				matched := true
				cm := NewCondMutation(ColumnFilter(fmt.Sprintf("c%d", i)), nil, set("claim", fmt.Sprintf("c%d", i), 1, fmt.Sprint(w)))
				if err := tbl.Apply(ctx, "row", cm, GetCondMutationResult(&matched)); err != nil {
					return err
				}
				if !matched {
					if _, dup := claimed.LoadOrStore(i, w); dup {
						return fmt.Errorf("claim c%d taken twice", i)
					}
				}
				r, err := tbl.ReadRow(ctx, "row", RowFilter(FamilyFilter("f")))
				if err != nil {
					return err
				}
				if len(r["f"]) != 2 || string(r["f"][0].Value) != string(r["f"][1].Value) {
					return fmt.Errorf("read %v: want hot and twin, one version each, equal", r["f"])
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	r, err := tbl.ReadRow(ctx, "row", RowFilter(FamilyFilter("f")))
	if err != nil {
		t.Fatal(err)
	}
	if want := Timestamp(workers * each); len(r["f"]) != 2 || r["f"][0].Timestamp != want {
		t.Errorf("final row %v, want hot and twin at %d", r["f"], want)
	}
	if err := db.GC(ctx); err != nil {
		t.Fatal(err)
	}
	// row: hot, twin and one claim per i; other: x.
	if n, want := rawCells(t, db.DB), 2+each+1; n != want {
		t.Errorf("after GC %d cells on disk, want %d", n, want)
	}
}
