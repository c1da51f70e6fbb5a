package keyspace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webtable/webtable/internal/keyspace"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "b"},
		{"com.cnn/", "com.cnn0"},
		{"a\xff", "b"},
		{"a\xfe", "a\xff"},
		{"a\xfe\xff\xff", "a\xff"},
		{"\x00", "\x01"},
		{"\xff\xff", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := keyspace.PrefixEnd(tc.in); got != tc.want {
			t.Errorf("PrefixEnd(%q) = %q, want %q", tc.in, got, tc.want)
		}
		got := keyspace.PrefixEnd([]byte(tc.in))
		if string(got) != tc.want || (tc.want == "") != (got == nil) {
			t.Errorf("PrefixEnd([]byte(%q)) = %q (nil %t), want %q", tc.in, got, got == nil, tc.want)
		}
	}
}

// TestPrefixEndCopies checks that the byte form neither changes its input
// nor returns memory that a later write to the input would change.
func TestPrefixEndCopies(t *testing.T) {
	p := []byte("com.cnn/")
	end := keyspace.PrefixEnd(p)
	if string(p) != "com.cnn/" {
		t.Fatalf("PrefixEnd changed its input to %q", p)
	}
	p[0] = 'x'
	if string(end) != "com.cnn0" {
		t.Fatalf("PrefixEnd(%q) = %q after its input changed, want %q", "com.cnn/", end, "com.cnn0")
	}
}

// FuzzPrefixEnd checks the contract: every key with the prefix sorts before
// the end, the end itself does not have the prefix, and nothing sorts between
// the prefix's keys and the end (the end less one is all-0xFF-extended prefix).
func FuzzPrefixEnd(f *testing.F) {
	f.Add("com.cnn/", "index.html")
	f.Add("a\xff", "\xff")
	f.Add("\xff", "")
	f.Fuzz(func(t *testing.T, p, suffix string) {
		end := keyspace.PrefixEnd(p)
		if b := keyspace.PrefixEnd([]byte(p)); string(b) != end {
			t.Fatalf("PrefixEnd([]byte(%q)) = %q, PrefixEnd(%q) = %q", p, b, p, end)
		}
		if end == "" {
			if strings.Trim(p, "\xff") != "" {
				t.Fatalf("PrefixEnd(%q) = \"\" (unbounded), but %q has a byte below 0xFF", p, p)
			}
			return
		}
		if k := p + suffix; k >= end {
			t.Fatalf("key %q has prefix %q but does not sort before PrefixEnd = %q", k, p, end)
		}
		if strings.HasPrefix(end, p) {
			t.Fatalf("PrefixEnd(%q) = %q has the prefix itself", p, end)
		}
		// The greatest keys below end: end's last byte less one, then
		// 0xFF bytes; they must start with p, so no other key fits below end.
		below := []byte(end)
		below[len(below)-1]--
		below = append(below, bytes.Repeat([]byte{0xFF}, len(p))...)
		if !bytes.HasPrefix(below, []byte(p)) {
			t.Fatalf("PrefixEnd(%q) = %q is not the least bound: %q sorts below it without the prefix", p, end, below)
		}
	})
}
