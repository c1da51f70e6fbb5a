package jsonshape

import "testing"

// TestSize: bytes below 1 KiB as they are, above with one decimal of the
// largest binary unit that fits.
func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {950, "950 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"},
		{12595, "12.3 KiB"}, {4 << 20, "4.0 MiB"}, {3 << 30, "3.0 GiB"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
