package urlkey

import "testing"

// TestHostBucket: the documented rule (FNV-1a 64 of the normalised host,
// modulo Buckets), one bucket for every spelling of a host.
func TestHostBucket(t *testing.T) {
	// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c, computed by hand.
	if got, want := HostBucket("a"), int(uint64(0xaf63dc4c8601ec8c)%Buckets); got != want {
		t.Errorf("HostBucket(%q) = %d, want %d", "a", got, want)
	}
	for _, same := range [][]string{
		{"www.cnn.com", "WWW.CNN.COM", "www.cnn.com:8080", "www.cnn.com.", "Www.Cnn.Com.:443"},
		{"::1", "[::1]", "[::1]:8080"},
	} {
		for _, h := range same[1:] {
			if HostBucket(h) != HostBucket(same[0]) {
				t.Errorf("HostBucket(%q) = %d, want %d as for %q", h, HostBucket(h), HostBucket(same[0]), same[0])
			}
		}
	}
	for n := 1; n <= 16; n++ {
		if Buckets%n != 0 {
			t.Errorf("%d shards do not divide %d buckets", n, Buckets)
		}
	}
}
