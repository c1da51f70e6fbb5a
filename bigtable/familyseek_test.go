package bigtable

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// visitedBy returns the results of read and how many cells it decoded.
func visitedBy(t *testing.T, read func() []Row) ([]string, int) {
	t.Helper()
	n := 0
	cellsVisitedHook = func(k int) { n += k }
	defer func() { cellsVisitedHook = nil }()
	return cellStrings(read()), n
}

// TestReadSeeksToFamily checks that a read of one family steps over the
// cells of families before it by seeking, not by walking each of them (the
// row WebTable reads most, a home page, holds an anchor cell per page that
// links to it, and anchor sorts before fetch), and that it reads the same
// cells as a read that walks them.
func TestReadSeeksToFamily(t *testing.T) {
	db := openTestDB(t)
	tbl := db.mustTable("t", "anchor", "fetch", "zlast")
	const anchors = 2000
	m := NewMutation()
	for i := range anchors {
		m.Set("anchor", fmt.Sprintf("ref%05d", i), 5, []byte("text"))
	}
	m.Set("fetch", "state", 7, []byte("done"))
	m.Set("fetch", "state", 3, []byte("queued"))
	m.Set("zlast", "x", 1, []byte("z"))
	mustApply(t, tbl, "home", m)
	// A row with only anchors, one with only the family read, one with
	// both, and one whose wanted family comes after many anchors again.
	only := NewMutation()
	for i := range 50 {
		only.Set("anchor", fmt.Sprintf("a%03d", i), 5, nil)
	}
	mustApply(t, tbl, "a-only-anchors", only)
	mustApply(t, tbl, "b-only-fetch", set("fetch", "state", 2, "queued"))
	both := NewMutation()
	for i := range 30 {
		both.Set("anchor", fmt.Sprintf("a%03d", i), 5, nil)
	}
	both.Set("fetch", "url", 4, []byte("http://x/"))
	mustApply(t, tbl, "c-both", both)

	ctx := context.Background()
	filters := []struct {
		name string
		f    Filter
	}{
		{"family", FamilyFilter("fetch")},
		{"column latest", ChainFilters(ColumnRangeFilter("fetch", "state", "state\x00"), LatestNFilter(1))},
		{"interleave", InterleaveFilters(ColumnRangeFilter("fetch", "state", "state\x00"), ColumnRangeFilter("fetch", "url", "url\x00"))},
		{"last family", FamilyFilter("zlast")},
		{"two families", InterleaveFilters(FamilyFilter("fetch"), FamilyFilter("zlast"))},
		{"no family", ChainFilters(FamilyFilter("fetch"), FamilyFilter("zlast"))},
	}
	rowSets := []struct {
		name string
		rs   RowSet
	}{
		{"list", RowList{"a-only-anchors", "b-only-fetch", "c-both", "home"}},
		{"range", InfiniteRange("")},
	}
	for _, fc := range filters {
		for _, rc := range rowSets {
			t.Run(fc.name+"/"+rc.name, func(t *testing.T) {
				got, _ := visitedBy(t, func() []Row { return readAll(t, tbl, rc.rs, RowFilter(fc.f)) })
				// CellsPerRowOffsetFilter(0) passes every cell but counts
				// a row's cells, so a read with it walks them all.
				walk := ChainFilters(fc.f, CellsPerRowOffsetFilter(0))
				want, _ := visitedBy(t, func() []Row { return readAll(t, tbl, rc.rs, RowFilter(walk)) })
				if !slices.Equal(got, want) {
					t.Errorf("ReadRows(%q) =\n%q\nwant (read walking every cell)\n%q", fc.f, got, want)
				}
			})
		}
	}

	t.Run("ReadRow visits few cells", func(t *testing.T) {
		f := ChainFilters(ColumnRangeFilter("fetch", "state", "state\x00"), LatestNFilter(1))
		got, n := visitedBy(t, func() []Row {
			r, err := tbl.ReadRow(ctx, "home", RowFilter(f))
			if err != nil {
				t.Fatalf("ReadRow(home) = %v", err)
			}
			return []Row{r}
		})
		if want := []string{"home fetch:state@7=done"}; !slices.Equal(got, want) {
			t.Fatalf("ReadRow(home, %q) = %q, want %q", f, got, want)
		}
		if n > 4*cursorSteps {
			t.Errorf("ReadRow(home, %q) decoded %d cells of a row with %d anchor cells before fetch; want at most %d (a seek to the family)",
				f, n, anchors, 4*cursorSteps)
		}
	})
}

// TestReadFamilies checks which filters let a read skip other families.
func TestReadFamilies(t *testing.T) {
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{FamilyFilter("fetch"), []string{"fetch"}},
		{FamilyFilter("fe.*"), nil},
		{ColumnRangeFilter("fetch", "a", "b"), []string{"fetch"}},
		{ChainFilters(FamilyFilter("fetch"), LatestNFilter(1)), []string{"fetch"}},
		{ChainFilters(LatestNFilter(1), ColumnRangeFilter("b", "", "")), []string{"b"}},
		{InterleaveFilters(FamilyFilter("b"), FamilyFilter("a")), []string{"a", "b"}},
		{InterleaveFilters(FamilyFilter("b"), ColumnFilter("x")), nil},
		{ChainFilters(FamilyFilter("a"), FamilyFilter("b")), []string{}},
		{ChainFilters(FamilyFilter("fetch"), CellsPerRowLimitFilter(1)), nil},
		{ChainFilters(CellsPerRowOffsetFilter(1), FamilyFilter("fetch")), nil},
		{ConditionFilter(FamilyFilter("a"), FamilyFilter("a"), nil), nil},
		{nil, nil},
	} {
		got := readFamilies(tc.f)
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("readFamilies(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestCompileByteRegexpCached checks that a pattern is compiled once and
// shared, and that a bad pattern is still an error each time.
func TestCompileByteRegexpCached(t *testing.T) {
	a, err := compileByteRegexp("fe.ch|anchor")
	if err != nil {
		t.Fatalf("compileByteRegexp = %v", err)
	}
	b, _ := compileByteRegexp("fe.ch|anchor")
	if a != b {
		t.Errorf("compileByteRegexp twice gave two regexps; want the cached one")
	}
	if !b.matchString("fetch") || b.matchString("fetchx") {
		t.Errorf("cached regexp matches wrongly")
	}
	for range 2 {
		if _, err := compileByteRegexp("(bad"); err == nil {
			t.Errorf("compileByteRegexp(%q) = nil error, want one", "(bad")
		}
	}
}

// BenchmarkReadFamilyAfterAnchors reads fetch:state from a row that holds
// many anchor cells before it (a home page's row in a crawl), seeking past
// them ("seek") and, as the baseline in the same run, walking them ("walk",
// forced by a filter that counts a row's cells).
func BenchmarkReadFamilyAfterAnchors(b *testing.B) {
	for _, anchors := range []int{10, 1000, 10000} {
		db := openTestDB(b)
		tbl := db.mustTable("t", "anchor", "fetch")
		m := NewMutation()
		for i := range anchors {
			m.Set("anchor", fmt.Sprintf("ref%06d", i), 5, []byte("text"))
		}
		m.Set("fetch", "state", 7, []byte("done"))
		mustApply(b, tbl, "home", m)
		f := ChainFilters(ColumnRangeFilter("fetch", "state", "state\x00"), LatestNFilter(1))
		for _, mode := range []struct {
			name string
			f    Filter
		}{{"seek", f}, {"walk", ChainFilters(f, CellsPerRowOffsetFilter(0))}} {
			b.Run(fmt.Sprintf("anchors=%d/%s", anchors, mode.name), func(b *testing.B) {
				for b.Loop() {
					if r, err := tbl.ReadRow(context.Background(), "home", RowFilter(mode.f)); err != nil || len(r["fetch"]) != 1 {
						b.Fatalf("ReadRow(home) = %v, %v", r, err)
					}
				}
			})
		}
	}
}
