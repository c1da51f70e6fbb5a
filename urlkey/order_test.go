package urlkey_test

import (
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// TestKeyOrder lists URLs in the order their keys must sort, and checks
// each key is strictly greater than the one before. It pins down the byte
// order that DomainRanges relies on: '-' < '.' < '/' < '0'...'9' < ':', so a
// domain's subdomains and default-port pages sort together, and its pages on
// other ports come after hosts like cnn0.com.
func TestKeyOrder(t *testing.T) {
	ordered := []string{
		"http://10.0.0.1/",
		"http://127.0.0.1/",
		"http://127.0.0.1:8080/",
		"http://[::1]/",
		"http://my.look.ca/",
		"http://cnn-money.com/",
		"http://edition.www.cnn.com/",
		"http://www.cnn.com/",
		"http://www.cnn.com/a",
		"http://www.cnn.com:8080/",
		"http://cnn.com/",
		"http://cnn.com/a?b",
		"http://cnn0.com/",
		"http://cnn.com:8080/",
		"http://cnnsi.com/",
		"http://maps.google.com/",
		"http://www.bücher.de/",
	}
	prev := ""
	for i, u := range ordered {
		k, err := urlkey.Key(u)
		if err != nil {
			t.Fatalf("Key(%q): %v", u, err)
		}
		if i > 0 && k <= prev {
			t.Errorf("Key(%q) = %q sorts before or equal to the key of %q, %q", u, k, ordered[i-1], prev)
		}
		prev = k
	}
}
