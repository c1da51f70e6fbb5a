package cloud

import (
	"math/rand/v2"
	"testing"

	"github.com/webtable/webtable/bigtable/internal/spec"
)

// inSet says whether key is a row of rs, by the definitions of package
// bigtable (an empty key is no row).
func inSet(rs spec.RowSet, key string) bool {
	if key == "" {
		return false
	}
	if rs.Kind == spec.ListSet {
		for _, k := range rs.Keys {
			if k == key {
				return true
			}
		}
		return false
	}
	for _, r := range rs.Ranges {
		if _, ok := toRowRange(r); !ok {
			continue
		}
		okStart := r.StartBound == spec.Unbounded || r.StartBound == spec.Closed && key >= r.Start || r.StartBound == spec.Open && key > r.Start
		okEnd := r.EndBound == spec.Unbounded || r.EndBound == spec.Closed && key <= r.End || r.EndBound == spec.Open && key < r.End
		if okStart && okEnd {
			return true
		}
	}
	return false
}

// TestSplitRowSet: over random row sets and random samples, every row of
// the set is in exactly one piece and no piece holds a row outside it.
func TestSplitRowSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"", "a", "a\x00", "ab", "b", "ba", "bb", "c", "\xff"}
	key := func() string { return alphabet[rng.IntN(len(alphabet))] }
	bound := func() spec.Bound { return spec.Bound(rng.IntN(3)) }
	for i := range 5000 {
		var rs spec.RowSet
		switch rng.IntN(3) {
		case 0:
			rs.Kind = spec.ListSet
			for range rng.IntN(5) {
				rs.Keys = append(rs.Keys, key())
			}
		default:
			rs.Kind = spec.RangeListSet
			for range 1 + rng.IntN(3) {
				r := spec.RowRange{StartBound: bound(), Start: key(), EndBound: bound(), End: key()}
				if r.Start == "" || r.StartBound == spec.Unbounded {
					r.StartBound, r.Start = spec.Unbounded, ""
				}
				if r.End == "" || r.EndBound == spec.Unbounded {
					r.EndBound, r.End = spec.Unbounded, ""
				}
				rs.Ranges = append(rs.Ranges, r)
			}
		}
		var samples []string
		for range rng.IntN(5) {
			samples = append(samples, key())
		}
		samples = append(samples, "")
		pieces := splitRowSet(rs, samples)
		for _, k := range alphabet {
			n := 0
			for _, p := range pieces {
				if inSet(p, k) {
					n++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[inSet(rs, k)]; n != want {
				t.Fatalf("case %d: %+v cut at %q: row %q is in %d pieces, want %d\npieces: %+v", i, rs, samples, k, n, want, pieces)
			}
		}
	}
}

func TestClipRange(t *testing.T) {
	r := func(sb spec.Bound, s string, eb spec.Bound, e string) spec.RowRange {
		return spec.RowRange{StartBound: sb, Start: s, EndBound: eb, End: e}
	}
	u, o, c := spec.Unbounded, spec.Open, spec.Closed
	for _, tc := range []struct {
		in     spec.RowRange
		lo, hi string
		want   spec.RowRange
		ok     bool
	}{
		{r(u, "", u, ""), "b", "d", r(c, "b", o, "d"), true},
		{r(o, "b", c, "d"), "b", "d", r(o, "b", o, "d"), true},
		{r(c, "c", c, "c"), "b", "d", r(c, "c", c, "c"), true},
		{r(c, "a", o, "b"), "b", "d", r(c, "b", o, "b"), false},
		{r(c, "e", u, ""), "b", "d", r(c, "e", o, "d"), false},
		{r(c, "a", c, "z"), "", "", r(c, "a", c, "z"), true},
	} {
		got, ok := clipRange(tc.in, tc.lo, tc.hi)
		if got != tc.want || ok != tc.ok {
			t.Errorf("clipRange(%+v, %q, %q) = %+v, %v; want %+v, %v", tc.in, tc.lo, tc.hi, got, ok, tc.want, tc.ok)
		}
	}
}
