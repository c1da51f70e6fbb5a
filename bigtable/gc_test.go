package bigtable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// gcModel is the reference for GC: a column is a slice of versions, newest
// first; writes prune the columns they touch, as the store promises.
type gcModel struct {
	policy GCPolicy
	cols   map[string][]modelCell // "row/qualifier" -> versions
}

type modelCell struct {
	ts    Timestamp
	value string
}

func (m *gcModel) prune(col string, now Timestamp) {
	var kept []modelCell
	for i, c := range m.cols[col] {
		if !m.policy.collects(i, c.ts, now) {
			kept = append(kept, c)
		}
	}
	m.cols[col] = kept
}

func (m *gcModel) set(col string, ts Timestamp, v string, now Timestamp) {
	cs := slices.DeleteFunc(m.cols[col], func(c modelCell) bool { return c.ts == ts })
	cs = append(cs, modelCell{ts, v})
	slices.SortFunc(cs, func(a, b modelCell) int { return int(b.ts - a.ts) })
	m.cols[col] = cs
	m.prune(col, now)
}

func (m *gcModel) deleteRange(col string, start, end Timestamp, now Timestamp) {
	m.prune(col, now)
	m.cols[col] = slices.DeleteFunc(m.cols[col], func(c modelCell) bool {
		return c.ts >= start && (end == 0 || c.ts < end)
	})
	m.prune(col, now)
}

// visible renders what a read must return at now.
func (m *gcModel) visible(now Timestamp) []string {
	var out []string
	for _, col := range slices.Sorted(mapsKeys(m.cols)) {
		for i, c := range m.cols[col] {
			if !m.policy.collects(i, c.ts, now) {
				out = append(out, fmt.Sprintf("%s@%d=%s", col, c.ts, c.value))
			}
		}
	}
	return out
}

func mapsKeys(m map[string][]modelCell) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestGCAgainstModel(t *testing.T) {
	ctx := context.Background()
	hour := time.Hour
	for _, policy := range []GCPolicy{
		MaxVersionsPolicy(2),
		MaxAgePolicy(hour),
		UnionPolicy(MaxVersionsPolicy(3), MaxAgePolicy(hour)),
		IntersectionPolicy(MaxVersionsPolicy(1), MaxAgePolicy(hour)),
		IntersectionPolicy(UnionPolicy(MaxVersionsPolicy(2)), MaxAgePolicy(hour)),
		NoGcPolicy(),
	} {
		t.Run(policy.String(), func(t *testing.T) {
			db := openTestDB(t, WithGCInterval(0))
			tbl := db.mustTable("t", "f")
			if err := db.SetGCPolicy(ctx, "t", "f", policy); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(policy.String()))))
			model := &gcModel{policy: policy, cols: map[string][]modelCell{}}
			now := Now()
			// Old cells are two hours old, young ones a few seconds: the
			// test's own running time cannot move a cell across the line.
			pickTS := func() Timestamp {
				if rng.IntN(2) == 0 {
					return now - Timestamp(2*hour/time.Microsecond) - Timestamp(rng.IntN(5))
				}
				return now - Timestamp(rng.IntN(5))
			}
			for step := range 300 {
				row := fmt.Sprintf("r%d", rng.IntN(3))
				q := fmt.Sprintf("q%d", rng.IntN(2))
				col := row + "/" + q
				m := NewMutation()
				switch rng.IntN(5) {
				case 0:
					ts := pickTS()
					end := ts + Timestamp(rng.IntN(3)) + 1
					m.DeleteTimestampRange("f", q, ts, end)
					mustApply(t, tbl, row, m)
					model.deleteRange(col, ts, end, Now())
					continue
				default:
					ts, v := pickTS(), fmt.Sprint(step)
					m.Set("f", q, ts, []byte(v))
					mustApply(t, tbl, row, m)
					model.set(col, ts, v, Now())
				}
			}
			var got []string
			for _, r := range readAll(t, tbl, InfiniteRange("")) {
				for _, it := range r["f"] {
					got = append(got, fmt.Sprintf("%s/%s@%d=%s", it.Row, it.Column[2:], it.Timestamp, it.Value))
				}
			}
			want := model.visible(Now())
			if !slices.Equal(got, want) {
				t.Fatalf("read =\n%q\nmodel =\n%q", got, want)
			}
			if err := db.GC(ctx); err != nil {
				t.Fatal(err)
			}
			if n := rawCells(t, db.DB); n != len(want) {
				t.Errorf("after GC %d cells on disk, %d visible", n, len(want))
			}
		})
	}
}

// rawCells counts the cell keys in Badger.
func rawCells(t *testing.T, db *DB) int {
	n := 0
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{dataSpace}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGCPolicyStrings(t *testing.T) {
	for _, tc := range []struct {
		p    GCPolicy
		want string
	}{
		{MaxVersionsPolicy(3), "versions() > 3"},
		{MaxAgePolicy(48 * time.Hour), "age() > 2d"},
		{MaxAgePolicy(90 * time.Minute), "age() > 90m"},
		{MaxAgePolicy(1500 * time.Millisecond), "age() > 1500000"},
		{UnionPolicy(MaxVersionsPolicy(1), MaxAgePolicy(time.Hour)), "(versions() > 1 || age() > 1h)"},
		{IntersectionPolicy(MaxVersionsPolicy(1), MaxAgePolicy(time.Hour)), "(versions() > 1 && age() > 1h)"},
		{NoGcPolicy(), ""},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	if err := validatePolicy(MaxVersionsPolicy(-1)); err == nil {
		t.Errorf("negative versions accepted")
	}
}

// TestGCPruneOnWrite: a MaxVersions family never holds more versions on
// disk than it keeps, without any GC pass.
func TestGCPruneOnWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(2))
	for i := range 20 {
		mustApply(t, tbl, "r", set("f", "q", Timestamp(i), "v"))
		errs, err := tbl.ApplyBulk(ctx, []string{"s"}, []*Mutation{set("f", "q", Timestamp(i), "v")})
		if err != nil || errs != nil {
			t.Fatal(err, errs)
		}
	}
	if n := rawCells(t, db.DB); n != 4 {
		t.Errorf("%d cells on disk, want 4", n)
	}
}

// TestGCAfterPolicyChange: tightening a version policy collects old
// versions at once for reads, and GC removes them from disk.
func TestGCAfterPolicyChange(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	for i := range 5 {
		mustApply(t, tbl, "r", set("f", "q", Timestamp(i+1), "v"))
	}
	if err := db.GC(ctx); err != nil { // nothing to do, but a full pass
		t.Fatal(err)
	}
	if err := db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(2)); err != nil {
		t.Fatal(err)
	}
	r, _ := tbl.ReadRow(ctx, "r")
	if len(r["f"]) != 2 || r["f"][0].Timestamp != 5 {
		t.Errorf("after policy change read %q", cellStrings([]Row{r}))
	}
	if err := db.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rawCells(t, db.DB); n != 2 {
		t.Errorf("%d cells on disk after GC, want 2", n)
	}
}

// TestRelaxedPolicyDoesNotResurrect: cells a policy collected stay gone
// when the policy becomes more lenient.
func TestRelaxedPolicyDoesNotResurrect(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f")
	old := Now() - Timestamp(2*time.Hour/time.Microsecond)
	m := NewMutation()
	m.Set("f", "q", old, []byte("old"))
	m.Set("f", "q", Now(), []byte("new"))
	mustApply(t, tbl, "r", m)
	if err := db.SetGCPolicy(ctx, "t", "f", MaxAgePolicy(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.SetGCPolicy(ctx, "t", "f", NoGcPolicy()); err != nil {
		t.Fatal(err)
	}
	r, _ := tbl.ReadRow(ctx, "r")
	if len(r["f"]) != 1 || string(r["f"][0].Value) != "new" {
		t.Errorf("after relaxing the policy read %q", cellStrings([]Row{r}))
	}
}

// TestBackgroundGC: the goroutine started by WithGCInterval removes cells a
// new policy collects, without anyone calling GC.
func TestBackgroundGC(t *testing.T) {
	ctx := context.Background()
	passes := make(chan error, 100)
	hook := optionFunc(func(o *options) { o.afterGC = func(err error) { trySend(passes, err) } })
	db := openTestDB(t, WithGCInterval(time.Millisecond), hook)
	tbl := db.mustTable("t", "f")
	old := Now() - Timestamp(2*time.Hour/time.Microsecond)
	m := NewMutation()
	m.Set("f", "q", old, []byte("old"))
	m.Set("f", "q", Now(), []byte("new"))
	mustApply(t, tbl, "r", m)
	if err := db.SetGCPolicy(ctx, "t", "f", MaxAgePolicy(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Forget passes that ended already. Of the next two, the first may have
	// started before the policy changed; the second started after it.
	for len(passes) > 0 {
		<-passes
	}
	for range 2 {
		if err := <-passes; err != nil {
			t.Fatalf("background GC: %v", err)
		}
	}
	if n := rawCells(t, db.DB); n != 1 {
		t.Errorf("%d cells on disk after background GC, want 1", n)
	}
	db.Close() // stops the goroutine; no pass runs after this
}

// TestGCPruneOnWriteBulk: bulk writes over many rows, to columns that are
// new, that have versions to drop, that sit between untouched rows, and
// whose qualifiers extend each other, leave on disk exactly the cells a
// read shows, without GC. flushPrune walks them with one forward-only
// iterator, seeking only when a column is not close ahead.
func TestGCPruneOnWriteBulk(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "f", "g")
	db.SetGCPolicy(ctx, "t", "f", MaxVersionsPolicy(2))
	db.SetGCPolicy(ctx, "t", "g", MaxVersionsPolicy(1))
	rng := rand.New(rand.NewPCG(5, 6))
	quals := []string{"", "q", "q0", "q00", "r", "s\x00t"}
	for step := range 200 {
		var rows []string
		var muts []*Mutation
		for range 1 + rng.IntN(12) {
			m := NewMutation()
			for range 1 + rng.IntN(4) {
				fam := []string{"f", "g"}[rng.IntN(2)]
				m.Set(fam, quals[rng.IntN(len(quals))], Timestamp(rng.IntN(50)), []byte(fmt.Sprint(step)))
			}
			rows = append(rows, fmt.Sprintf("r%02d", rng.IntN(60)))
			muts = append(muts, m)
		}
		if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
			t.Fatal(err, errs)
		}
		visible := 0
		for _, r := range readAll(t, tbl, InfiniteRange("")) {
			for _, items := range r {
				visible += len(items)
			}
		}
		if n := rawCells(t, db.DB); n != visible {
			t.Fatalf("after bulk write %d: %d cells on disk, %d visible", step, n, visible)
		}
	}
}

// TestGCPruneOnWriteBulkRepeatedColumn: a bulk write that names the same
// row twice, setting the same column (and one whose qualifier extends it)
// in both mutations, still prunes each column down to its policy, even
// though flushPrune walks a repeated column only once.
func TestGCPruneOnWriteBulkRepeatedColumn(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithGCInterval(0))
	tbl := db.mustTable("t", "g")
	db.SetGCPolicy(ctx, "t", "g", MaxVersionsPolicy(1))
	for ts := range Timestamp(3) {
		m := NewMutation()
		m.Set("g", "q", ts, []byte("old"))
		m.Set("g", "q0", ts, []byte("old"))
		if err := tbl.Apply(ctx, "r", m); err != nil {
			t.Fatal(err)
		}
	}
	m1, m2 := NewMutation(), NewMutation()
	m1.Set("g", "q", 10, []byte("a"))
	m2.Set("g", "q", 11, []byte("b"))
	m2.Set("g", "q0", 11, []byte("b"))
	if errs, err := tbl.ApplyBulk(ctx, []string{"r", "r"}, []*Mutation{m1, m2}); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	if n := rawCells(t, db.DB); n != 2 {
		t.Fatalf("%d cells on disk after the bulk write, want 2 (one per column)", n)
	}
}
