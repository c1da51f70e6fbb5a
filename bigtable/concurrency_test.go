package bigtable

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
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
