package wire

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
)

// TestAfter checks what is left of ranges after a row, against a model:
// every key of a small alphabet is in the result exactly when it is in the
// ranges and greater than the row.
func TestAfter(t *testing.T) {
	keys := []string{"a", "a\x00", "b", "b\x00", "c", "d", "e"}
	ranges := []Range{
		{Closed, "b", Closed, "d"},
		{Open, "a", Open, "c"},
		{Unbounded, "", Closed, "b"},
		{Closed, "c", Unbounded, ""},
		{Closed, "b", Closed, "b"},
		{Open, "b", Open, "b\x00"},
		{},
	}
	for _, r := range ranges {
		for _, after := range keys {
			left := After([]Range{r}, after)
			for _, k := range keys {
				want := r.rowRange().Contains(k) && k > after
				got := slices.ContainsFunc(left, func(l Range) bool { return l.rowRange().Contains(k) })
				if got != want {
					t.Errorf("After(%v, %q) = %v: contains %q = %v, want %v", r.rowRange(), after, left, k, got, want)
				}
			}
		}
	}
}

// TestBounds checks open and closed column and value bounds against
// Contains-like models on the keys around them.
func TestBounds(t *testing.T) {
	cr := &btpb.ColumnRange{FamilyName: "f",
		StartQualifier: &btpb.ColumnRange_StartQualifierOpen{StartQualifierOpen: []byte("b")},
		EndQualifier:   &btpb.ColumnRange_EndQualifierClosed{EndQualifierClosed: []byte("d")}}
	start, end := columnBounds(cr)
	for _, q := range []string{"a", "b", "b\x00", "c", "d", "d\x00", "e"} {
		want := q > "b" && q <= "d"
		got := q >= start && q < end
		if got != want {
			t.Errorf("column (b, d]: %q in [%q, %q) = %v, want %v", q, start, end, got, want)
		}
	}
	vr := &btpb.ValueRange{StartValue: &btpb.ValueRange_StartValueClosed{StartValueClosed: []byte{}},
		EndValue: &btpb.ValueRange_EndValueClosed{EndValueClosed: []byte("x")}}
	vs, ve := valueBounds(vr)
	if vs == nil || string(ve) != "x\x00" {
		t.Errorf("value [\"\", x] = [%q, %q), want [\"\", \"x\\x00\") with a bounded start", vs, ve)
	}
}

// TestRefusals checks the sentinel of what the server must refuse.
func TestRefusals(t *testing.T) {
	one := &btpb.RowFilter{Filter: &btpb.RowFilter_Chain_{Chain: &btpb.RowFilter_Chain{Filters: []*btpb.RowFilter{
		{Filter: &btpb.RowFilter_PassAllFilter{PassAllFilter: true}}}}}}
	if _, err := Filter(one); !errors.Is(err, ErrInvalid) {
		t.Errorf("one-filter chain: %v, want ErrInvalid", err)
	}
	label := &btpb.RowFilter{Filter: &btpb.RowFilter_ApplyLabelTransformer{ApplyLabelTransformer: "l"}}
	if _, err := Filter(label); !errors.Is(err, ErrUnimplemented) {
		t.Errorf("label: %v, want ErrUnimplemented", err)
	}
	if _, err := Mutation(nil, "mutations"); !errors.Is(err, ErrInvalid) {
		t.Errorf("no mutation: %v, want ErrInvalid", err)
	}
	if p, err := GCPolicy(nil); err != nil || p.String() != bigtable.NoGcPolicy().String() {
		t.Errorf("nil GC rule = %v, %v; want no GC", p, err)
	}
}

// TestNormalizeAndAfterSorted checks Normalize and AfterSorted against a
// model on random sets of ranges over a small alphabet: the same keys, in
// sorted disjoint ranges, and after a row exactly the keys greater than it.
func TestNormalizeAndAfterSorted(t *testing.T) {
	keys := []string{"a", "a\x00", "b", "b\x00", "c", "c\x00", "d", "e"}
	bounds := []Bound{Unbounded, Open, Closed}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		orig := make([]Range, 1+r.IntN(5))
		for i := range orig {
			orig[i] = Range{bounds[r.IntN(3)], keys[r.IntN(len(keys))], bounds[r.IntN(3)], keys[r.IntN(len(keys))]}
			if orig[i].StartBound == Unbounded {
				orig[i].Start = ""
			}
			if orig[i].EndBound == Unbounded {
				orig[i].End = ""
			}
		}
		in := func(rs []Range, k string) bool {
			return slices.ContainsFunc(rs, func(l Range) bool { return l.rowRange().Contains(k) })
		}
		norm := Normalize(slices.Clone(orig))
		for i, n := range norm {
			if n.StartBound == Open || n.EndBound == Closed {
				t.Fatalf("Normalize(%v) = %v: range %d has an open start or a closed end", orig, norm, i)
			}
			if i > 0 && (norm[i-1].EndBound == Unbounded || norm[i-1].End >= n.Start) {
				t.Fatalf("Normalize(%v) = %v: ranges %d and %d overlap, touch or are out of order", orig, norm, i-1, i)
			}
		}
		for _, k := range keys {
			if got, want := in(norm, k), in(orig, k); got != want {
				t.Fatalf("Normalize(%v) = %v: contains %q = %v, want %v", orig, norm, k, got, want)
			}
		}
		for _, after := range keys {
			left := AfterSorted(slices.Clone(norm), after)
			for _, k := range keys {
				if got, want := in(left, k), in(orig, k) && k > after; got != want {
					t.Fatalf("AfterSorted(%v, %q) = %v: contains %q = %v, want %v", norm, after, left, k, got, want)
				}
			}
		}
	}
}
