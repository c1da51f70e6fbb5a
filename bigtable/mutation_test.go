package bigtable

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMutations(t *testing.T) {
	base := func() *Mutation {
		m := NewMutation()
		m.Set("A", "a", 1, []byte("a1"))
		m.Set("A", "a", 2, []byte("a2"))
		m.Set("A", "a", 3, []byte("a3"))
		m.Set("A", "b", 1, []byte("b1"))
		m.Set("B", "c", 1, []byte("c1"))
		return m
	}
	for _, tc := range []struct {
		name string
		mut  func(m *Mutation)
		want []string
	}{
		{"Set", func(m *Mutation) {}, []string{"r A:a@3=a3", "r A:a@2=a2", "r A:a@1=a1", "r A:b@1=b1", "r B:c@1=c1"}},
		{"Set replaces same timestamp", func(m *Mutation) { m.Set("A", "a", 2, []byte("new")) },
			[]string{"r A:a@3=a3", "r A:a@2=new", "r A:a@1=a1", "r A:b@1=b1", "r B:c@1=c1"}},
		{"Set empty qualifier and value", func(m *Mutation) { m.Set("B", "", 9, nil) },
			[]string{"r A:a@3=a3", "r A:a@2=a2", "r A:a@1=a1", "r A:b@1=b1", "r B:@9=", "r B:c@1=c1"}},
		{"DeleteCellsInColumn", func(m *Mutation) { m.DeleteCellsInColumn("A", "a") }, []string{"r A:b@1=b1", "r B:c@1=c1"}},
		{"DeleteCellsInColumn missing", func(m *Mutation) { m.DeleteCellsInColumn("A", "zz") },
			[]string{"r A:a@3=a3", "r A:a@2=a2", "r A:a@1=a1", "r A:b@1=b1", "r B:c@1=c1"}},
		{"DeleteTimestampRange [2,3)", func(m *Mutation) { m.DeleteTimestampRange("A", "a", 2, 3) },
			[]string{"r A:a@3=a3", "r A:a@1=a1", "r A:b@1=b1", "r B:c@1=c1"}},
		{"DeleteTimestampRange [2,inf)", func(m *Mutation) { m.DeleteTimestampRange("A", "a", 2, 0) },
			[]string{"r A:a@1=a1", "r A:b@1=b1", "r B:c@1=c1"}},
		{"DeleteTimestampRange [0,3)", func(m *Mutation) { m.DeleteTimestampRange("A", "a", 0, 3) },
			[]string{"r A:a@3=a3", "r A:b@1=b1", "r B:c@1=c1"}},
		{"DeleteCellsInFamily", func(m *Mutation) { m.DeleteCellsInFamily("A") }, []string{"r B:c@1=c1"}},
		{"DeleteRow", func(m *Mutation) { m.DeleteRow() }, nil},
		{"DeleteRow then Set", func(m *Mutation) { m.DeleteRow(); m.Set("B", "z", 4, []byte("z")) }, []string{"r B:z@4=z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t)
			tbl := db.mustTable("t", "A", "B")
			mustApply(t, tbl, "x", set("A", "a", 1, "other row"))
			mustApply(t, tbl, "r", base())
			m := NewMutation()
			tc.mut(m)
			if len(m.ops) > 0 {
				mustApply(t, tbl, "r", m)
			}
			got := cellStrings(readAll(t, tbl, SingleRow("r")))
			if !slices.Equal(got, tc.want) {
				t.Errorf("row after %s = %q, want %q", tc.name, got, tc.want)
			}
			if got := cellStrings(readAll(t, tbl, SingleRow("x"))); len(got) != 1 {
				t.Errorf("other row = %q", got)
			}
		})
	}
}

func TestMutationOrderWithinApply(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "A")
	m := NewMutation()
	m.Set("A", "a", 1, []byte("gone"))
	m.DeleteCellsInColumn("A", "a")
	m.Set("A", "b", 1, []byte("kept"))
	mustApply(t, tbl, "r", m)
	if got, want := cellStrings(readAll(t, tbl, SingleRow("r"))), []string{"r A:b@1=kept"}; !slices.Equal(got, want) {
		t.Errorf("row = %q, want %q", got, want)
	}
}

func TestServerTime(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "A")
	before := Now()
	m := NewMutation()
	m.Set("A", "a", ServerTime, []byte("x"))
	m.Set("A", "b", ServerTime, []byte("y"))
	mustApply(t, tbl, "r", m)
	after := Now()
	r, _ := tbl.ReadRow(context.Background(), "r")
	items := r["A"]
	if len(items) != 2 || items[0].Timestamp != items[1].Timestamp {
		t.Fatalf("ServerTime cells = %+v, want two with one timestamp", items)
	}
	if ts := items[0].Timestamp; ts < before || ts > after {
		t.Errorf("ServerTime = %d, want in [%d, %d]", ts, before, after)
	}
}

func TestTimestampConversions(t *testing.T) {
	tm := time.Date(2026, 11, 30, 5, 0, 0, 123456789, time.UTC)
	ts := Time(tm)
	if int64(ts) != tm.UnixMicro() {
		t.Errorf("Time(%v) = %d", tm, ts)
	}
	if !ts.Time().Equal(tm.Truncate(time.Microsecond)) {
		t.Errorf("%d.Time() = %v", ts, ts.Time())
	}
	if got := Timestamp(1234567).TruncateToMilliseconds(); got != 1234000 {
		t.Errorf("TruncateToMilliseconds = %d", got)
	}
	if ServerTime.TruncateToMilliseconds() != ServerTime {
		t.Errorf("ServerTime truncated")
	}
}

func TestCondMutation(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		cond    Filter
		matched bool
	}{
		{"filter matches", ValueFilter("v"), true},
		{"filter does not match", ValueFilter("nope"), false},
		{"nil filter on existing row", nil, true},
		{"chain not matching", ChainFilters(FamilyFilter("A"), ColumnFilter("zz")), false},
		{"condition filter", ConditionFilter(ColumnFilter("q"), PassAllFilter(), nil), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t)
			tbl := db.mustTable("t", "A")
			mustApply(t, tbl, "r", set("A", "q", 1, "v"))
			matched := !tc.matched
			cm := NewCondMutation(tc.cond, set("A", "yes", 2, "t"), set("A", "no", 2, "f"))
			if err := tbl.Apply(ctx, "r", cm, GetCondMutationResult(&matched)); err != nil {
				t.Fatal(err)
			}
			if matched != tc.matched {
				t.Errorf("matched = %v, want %v", matched, tc.matched)
			}
			r, _ := tbl.ReadRow(ctx, "r", RowFilter(ColumnFilter("yes|no")))
			want := "A:no"
			if tc.matched {
				want = "A:yes"
			}
			if len(r["A"]) != 1 || r["A"][0].Column != want {
				t.Errorf("after cond mutation row = %v, want only %s", cellStrings([]Row{r}), want)
			}
		})
	}
	t.Run("missing row and nil branch", func(t *testing.T) {
		db := openTestDB(t)
		tbl := db.mustTable("t", "A")
		matched := true
		if err := tbl.Apply(ctx, "r", NewCondMutation(nil, set("A", "x", 1, "x"), nil), GetCondMutationResult(&matched)); err != nil {
			t.Fatal(err)
		}
		if r, _ := tbl.ReadRow(ctx, "r"); matched || r != nil {
			t.Errorf("matched = %v, row = %v; want false and no row", matched, r)
		}
	})
	t.Run("nested", func(t *testing.T) {
		db := openTestDB(t)
		tbl := db.mustTable("t", "A")
		err := tbl.Apply(ctx, "r", NewCondMutation(nil, NewCondMutation(nil, nil, nil), nil))
		if !errors.Is(err, ErrInvalidMutation) {
			t.Errorf("nested cond mutation: %v, want ErrInvalidMutation", err)
		}
	})
}

func TestApplyBulk(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "A")
	rows := []string{"a", "", "b", "c", "a"}
	muts := []*Mutation{set("A", "q", 1, "a1"), set("A", "q", 1, "x"), set("B", "q", 1, "x"), NewCondMutation(nil, nil, nil), set("A", "q", 2, "a2")}
	errs, err := tbl.ApplyBulk(ctx, rows, muts)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != len(rows) {
		t.Fatalf("ApplyBulk errors = %v", errs)
	}
	for i, want := range []error{nil, ErrInvalidRowKey, ErrUnknownFamily, ErrInvalidMutation, nil} {
		if want == nil && errs[i] != nil || want != nil && !errors.Is(errs[i], want) {
			t.Errorf("errs[%d] = %v, want %v", i, errs[i], want)
		}
	}
	got := cellStrings(readAll(t, tbl, InfiniteRange("")))
	if want := []string{"a A:q@2=a2", "a A:q@1=a1"}; !slices.Equal(got, want) {
		t.Errorf("table = %q, want %q", got, want)
	}
	errs, err = tbl.ApplyBulk(ctx, []string{"d"}, []*Mutation{set("A", "q", 1, "d")})
	if errs != nil || err != nil {
		t.Errorf("ApplyBulk all valid = %v, %v; want nil, nil", errs, err)
	}
	if _, err := tbl.ApplyBulk(ctx, []string{"d"}, nil); err == nil {
		t.Errorf("ApplyBulk with mismatched lengths succeeded")
	}
}

// TestApplyBulkSplitsTransactions writes more than one Badger transaction
// holds and checks every row arrived whole.
func TestApplyBulkSplitsTransactions(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, WithMemTableSize(4<<20), WithValueThreshold(100<<10))
	tbl := db.mustTable("t", "A")
	var rows []string
	var muts []*Mutation
	val := strings.Repeat("v", 2000)
	for i := range 2000 {
		m := NewMutation()
		for q := range 5 {
			m.Set("A", itoa(int64(q)), 1, []byte(val))
		}
		rows = append(rows, "row"+itoa(int64(i)))
		muts = append(muts, m)
	}
	// One row bigger than a whole transaction fails alone.
	big := NewMutation()
	for q := range 400 {
		big.Set("A", itoa(int64(q)), 1, []byte(val))
	}
	rows = append(rows, "big")
	muts = append(muts, big)
	errs, err := tbl.ApplyBulk(ctx, rows, muts)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if (e != nil) != (rows[i] == "big") {
			t.Errorf("row %q: %v", rows[i], e)
		}
	}
	if errs == nil || !errors.Is(errs[len(errs)-1], ErrTooLarge) {
		t.Errorf("big row error = %v, want ErrTooLarge", errs)
	}
	n := 0
	for r, err := range tbl.Rows(ctx, InfiniteRange("")) {
		if err != nil {
			t.Fatal(err)
		}
		if len(r["A"]) != 5 {
			t.Errorf("row %q has %d cells, want 5", r.Key(), len(r["A"]))
		}
		n++
	}
	if n != 2000 {
		t.Errorf("read %d rows, want 2000", n)
	}
	if err := tbl.Apply(ctx, "big", big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Apply(big) = %v, want ErrTooLarge", err)
	}
}

func TestReadModifyWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "A", "B")
	mustApply(t, tbl, "r", set("A", "s", 5, "ab"))
	m := NewReadModifyWrite()
	m.AppendValue("A", "s", []byte("cd"))
	m.Increment("B", "n", 5)
	m.Increment("B", "n", -2)
	m.AppendValue("A", "new", []byte("x"))
	got, err := tbl.ApplyReadModifyWrite(ctx, "r", m)
	if err != nil {
		t.Fatal(err)
	}
	be := func(n int64) string { return string(binary.BigEndian.AppendUint64(nil, uint64(n))) }
	check := func(fam string, want ...string) {
		t.Helper()
		var vals []string
		for _, it := range got[fam] {
			vals = append(vals, it.Column+"="+string(it.Value))
			if it.Row != "r" || it.Timestamp < 5 {
				t.Errorf("item %+v", it)
			}
		}
		if !slices.Equal(vals, want) {
			t.Errorf("result %s = %q, want %q", fam, vals, want)
		}
	}
	check("A", "A:new=x", "A:s=abcd")
	check("B", "B:n="+be(3))
	r, _ := tbl.ReadRow(ctx, "r", RowFilter(LatestNFilter(1)))
	if v := string(r["A"][1].Value); v != "abcd" {
		t.Errorf("stored A:s = %q", v)
	}

	bad := NewReadModifyWrite()
	bad.Increment("B", "n", 1)
	bad.Increment("A", "s", 1)
	if _, err := tbl.ApplyReadModifyWrite(ctx, "r", bad); !errors.Is(err, ErrInvalidIncrement) {
		t.Errorf("increment of a 4-byte value = %v, want ErrInvalidIncrement", err)
	}
	r, _ = tbl.ReadRow(ctx, "r", RowFilter(ChainFilters(FamilyFilter("B"), LatestNFilter(1))))
	if v := string(r["B"][0].Value); v != be(3) {
		t.Errorf("failed RMW changed B:n to %x", v)
	}
	unknown := NewReadModifyWrite()
	unknown.Increment("C", "n", 1)
	if _, err := tbl.ApplyReadModifyWrite(ctx, "r", unknown); !errors.Is(err, ErrUnknownFamily) {
		t.Errorf("RMW on unknown family = %v", err)
	}
	if _, err := tbl.ApplyReadModifyWrite(ctx, "r", NewReadModifyWrite()); !errors.Is(err, ErrInvalidMutation) {
		t.Errorf("empty RMW = %v", err)
	}
}

// TestReadModifyWriteFutureCell: a cell in the future is replaced, not
// shadowed by an older new version.
func TestReadModifyWriteFutureCell(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "A")
	future := Now() + 3600e6
	mustApply(t, tbl, "r", set("A", "s", future, "a"))
	m := NewReadModifyWrite()
	m.AppendValue("A", "s", []byte("b"))
	got, err := tbl.ApplyReadModifyWrite(ctx, "r", m)
	if err != nil {
		t.Fatal(err)
	}
	if it := got["A"][0]; it.Timestamp != future || string(it.Value) != "ab" {
		t.Errorf("RMW result = %+v, want ab at %d", it, future)
	}
	r, _ := tbl.ReadRow(ctx, "r")
	if len(r["A"]) != 1 {
		t.Errorf("row = %v, want one version", cellStrings([]Row{r}))
	}
}

// TestMutationGrow: Grow makes room for the operations to come, so that
// adding them allocates nothing, and changes nothing a mutation writes.
func TestMutationGrow(t *testing.T) {
	var m *Mutation
	allocs := func(grow int) float64 {
		return testing.AllocsPerRun(10, func() {
			m = NewMutation()
			m.Grow(grow)
			for range 20 {
				m.SetOnlyVersion("g", "q", 1, nil)
			}
		})
	}
	most := 2.0 // the mutation and its room
	if raceEnabled {
		most++ // see race_on_test.go
	}
	if grown, not := allocs(20), allocs(0); grown > most || grown >= not {
		t.Errorf("a mutation grown by 20 and given 20 SetOnlyVersion allocated %v times (%v not grown), want at most %v", grown, not, most)
	}
	ctx := context.Background()
	db := openTestDB(t)
	tbl := db.mustTable("t", "g")
	g := NewMutation()
	g.Grow(3)
	g.Set("g", "q", 5, []byte("v"))
	mustApply(t, tbl, "a", g)
	if r, err := tbl.ReadRow(ctx, "a"); err != nil || len(r["g"]) != 1 || string(r["g"][0].Value) != "v" {
		t.Errorf("ReadRow after a grown mutation = %v, %v; want g:q = v", r, err)
	}
}
