package rowseq

import (
	"errors"
	"slices"
	"testing"
)

// read calls fn with 1, 2, 3 and then fails with err, unless fn stops it.
func read(err error) func(fn func(int) bool) error {
	return func(fn func(int) bool) error {
		for i := 1; i <= 3; i++ {
			if !fn(i) {
				return err
			}
		}
		return err
	}
}

// TestOf: every row in order, then the read's error as the last element;
// a loop that stops early sees no error.
func TestOf(t *testing.T) {
	bad := errors.New("store failed")
	var got []int
	var gotErr error
	for r, err := range Of(read(bad)) {
		if err != nil {
			gotErr = err
			continue
		}
		got = append(got, r)
	}
	if !slices.Equal(got, []int{1, 2, 3}) || gotErr != bad {
		t.Errorf("Of(read) gave %v, %v; want [1 2 3], %v", got, gotErr, bad)
	}
	got = nil
	for r, err := range Of(read(bad)) {
		if err != nil {
			t.Fatalf("a stopped loop got error %v", err)
		}
		got = append(got, r)
		if r == 2 {
			break
		}
	}
	if !slices.Equal(got, []int{1, 2}) {
		t.Errorf("stopped at 2: got %v", got)
	}
}
