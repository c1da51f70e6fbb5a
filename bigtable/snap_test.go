package bigtable

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestSnapshotReuseSeesEveryWrite: reads reuse snapshots, and a read that
// starts after a write returned must still see that write, whichever write
// path it took.
func TestSnapshotReuseSeesEveryWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f", "g")
	read := func(row, family string) string {
		t.Helper()
		r, err := tbl.ReadRow(ctx, row)
		if err != nil {
			t.Fatal(err)
		}
		if items := r[family]; len(items) > 0 {
			return string(items[0].Value)
		}
		return ""
	}
	for i := range 50 {
		read("r", "f") // leave a snapshot to be reused
		mustApply(t, tbl, "r", set("f", "q", Timestamp(i+1), strconv.Itoa(i)))
		if got := read("r", "f"); got != strconv.Itoa(i) {
			t.Fatalf("after Apply %d: read %q", i, got)
		}
	}
	if errs, err := tbl.ApplyBulk(ctx, []string{"r"}, []*Mutation{set("f", "q", 1000, "bulk")}); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	if got := read("r", "f"); got != "bulk" {
		t.Errorf("after ApplyBulk: %q", got)
	}
	rmw := NewReadModifyWrite()
	rmw.AppendValue("f", "q", []byte("+"))
	if _, err := tbl.ApplyReadModifyWrite(ctx, "r", rmw); err != nil {
		t.Fatal(err)
	}
	if got := read("r", "f"); got != "bulk+" {
		t.Errorf("after ApplyReadModifyWrite: %q", got)
	}
	mustApply(t, tbl, "r", set("g", "", 1, "g"))
	read("r", "g")
	if err := db.DeleteColumnFamily(ctx, "t", "g"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateColumnFamily(ctx, "t", "g"); err != nil {
		t.Fatal(err)
	}
	if got := read("r", "g"); got != "" {
		t.Errorf("after DeleteColumnFamily and CreateColumnFamily: %q", got)
	}
	if err := db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(1)); err != nil {
		t.Fatal(err)
	}
	r, err := tbl.ReadRow(ctx, "r", RowFilter(FamilyFilter("f")))
	if err != nil || len(r["f"]) != 1 {
		t.Errorf("after SetGCPolicy(MaxVersions(1)): %v, %v", r, err)
	}
}

// TestSnapshotReuseConcurrent: a writer publishes each value after its
// Apply returns; readers must never read a value older than the one
// published when their read began.
func TestSnapshotReuseConcurrent(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	mustApply(t, tbl, "r", set("f", "q", 1, "0"))
	var published atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				want := published.Load()
				r, err := tbl.ReadRow(ctx, "r")
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := strconv.ParseInt(string(r["f"][0].Value), 10, 64)
				if got < want {
					t.Errorf("read %d after %d was published", got, want)
					return
				}
			}
		}()
	}
	for i := int64(1); i <= 300; i++ {
		mustApply(t, tbl, "r", set("f", "q", 1, strconv.FormatInt(i, 10)))
		published.Store(i)
	}
	close(stop)
	wg.Wait()
}
