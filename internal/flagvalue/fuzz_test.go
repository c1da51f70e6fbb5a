package flagvalue

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParse: a size or shard that reads at all is within its bounds and
// reads back the same from its own written form.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"65536", "10MiB", "500KB", " 2 GiB ", "1B", "0", "-1", "1/3", "2/3", "3/3", "0/0", "x"} {
		f.Add(s)
	}
	f.Add(" Example.ORG")
	f.Add("https://example.org/sitemap.xml")
	f.Fuzz(func(t *testing.T, s string) {
		var domains []string
		if err := (Domains{&domains}).Set(s); err == nil {
			if d := domains[0]; d == "" || d != strings.ToLower(strings.TrimSpace(d)) || strings.ContainsAny(d, "/:@ ") {
				t.Fatalf("Domains.Set(%q) kept %q, not a trimmed lowercase name", s, d)
			}
		}
		var urls []string
		if err := (HTTPURLs{&urls, "x"}).Set(s); (err == nil) != (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) {
			t.Fatalf("HTTPURLs.Set(%q) = %v", s, err)
		}
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
