package urlkey_test

import (
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// TestKeyAllocs holds Key to its allocation budget on the crawler's hot
// path: the returned string only, for a canonical-looking ASCII URL that
// fits the stack buffer; one more for an upper-case host.
func TestKeyAllocs(t *testing.T) {
	tests := []struct {
		url  string
		want float64
	}{
		{"https://www.cnn.com/2024/05/01/world/europe/index.html", 1},
		{"http://maps.google.com/maps?q=new+york&hl=en", 1},
		{"http://cnn.com:8080/a/./b/../c?x=%7e", 1},
		{"http://WWW.CNN.COM/Index.html", 2},
	}
	for _, tc := range tests {
		got := testing.AllocsPerRun(100, func() {
			if _, err := urlkey.Key(tc.url); err != nil {
				t.Fatal(err)
			}
		})
		if got > tc.want {
			t.Errorf("Key(%q) makes %v allocations, want at most %v", tc.url, got, tc.want)
		}
	}
	for _, u := range benchURLs {
		t.Logf("Key(%q): %v allocs", u, testing.AllocsPerRun(100, func() { urlkey.Key(u) }))
	}
}
