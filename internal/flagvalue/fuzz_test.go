package flagvalue

import (
	"fmt"
	"testing"
)

// FuzzParse: a size or shard that reads at all is within its bounds and
// reads back the same from its own written form.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"65536", "10MiB", "500KB", " 2 GiB ", "1B", "0", "-1", "1/3", "2/3", "3/3", "0/0", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseBytes(s); err == nil {
			if n < 1 {
				t.Fatalf("ParseBytes(%q) = %d, want at least 1", s, n)
			}
			if back, err := ParseBytes(FormatBytes(n)); back != n || err != nil {
				t.Fatalf("ParseBytes(FormatBytes(%d) = %q) = %d, %v; want %d", n, FormatBytes(n), back, err, n)
			}
		}
		if i, n, err := ParseShard(s); err == nil {
			if i < 0 || i >= n {
				t.Fatalf("ParseShard(%q) = %d, %d: want 0 <= I < N", s, i, n)
			}
			if bi, bn, err := ParseShard(fmt.Sprintf("%d/%d", i, n)); bi != i || bn != n || err != nil {
				t.Fatalf("ParseShard(%d/%d) = %d, %d, %v", i, n, bi, bn, err)
			}
		}
	})
}
