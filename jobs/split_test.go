package jobs

import "testing"

// TestSplitWithin: a split's part of sorted keys starts at its first key
// at or after Start and ends before End ("" = the end).
func TestSplitWithin(t *testing.T) {
	keys := []string{"a", "b", "c", "d"}
	for _, tc := range []struct {
		s      Split
		lo, hi int
	}{
		{Split{}, 0, 4},
		{Split{Start: "b"}, 1, 4},
		{Split{Start: "b", End: "d"}, 1, 3},
		{Split{Start: "bb", End: "c"}, 2, 2},
		{Split{End: "a"}, 0, 0},
	} {
		if lo, hi := tc.s.Within(keys); lo != tc.lo || hi != tc.hi {
			t.Errorf("%v.Within(%q) = %d, %d; want %d, %d", tc.s, keys, lo, hi, tc.lo, tc.hi)
		}
	}
}
