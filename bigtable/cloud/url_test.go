package cloud

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		in   string
		want URL
	}{
		{"bigtable://my-project/my-instance", URL{Project: "my-project", Instance: "my-instance"}},
		{"bigtable://my-project/my-instance/webtable", URL{"my-project", "my-instance", "webtable"}},
		{"bigtable://example.com:proj/inst/t_1.a-b", URL{"example.com:proj", "inst", "t_1.a-b"}},
		{"bigtable://P/I/_x", URL{"P", "I", "_x"}},
		{"bigtable://p/i/" + strings.Repeat("t", 64), URL{"p", "i", strings.Repeat("t", 64)}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseURL(tc.in)
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("ParseURL(%q) = %#v, want %#v", tc.in, got, tc.want)
			}
			if s := got.String(); s != tc.in {
				t.Errorf("ParseURL(%q).String() = %q, want the input back", tc.in, s)
			}
			if !IsURL(tc.in) {
				t.Errorf("IsURL(%q) = false, want true", tc.in)
			}
		})
	}
}

func TestParseURLErrors(t *testing.T) {
	tests := []struct {
		in, wantIn string // wantIn: a substring the error must hold
	}{
		{"", "want bigtable://"},
		{"/var/lib/webtable", "want bigtable://"},
		{"BIGTABLE://p/i", "want bigtable://"},
		{"http://p/i", "want bigtable://"},
		{"bigtable://", "1 part"},
		{"bigtable://p", "1 part"},
		{"bigtable://p/", "empty instance"},
		{"bigtable:///i", "empty project"},
		{"bigtable://p/i/", "empty table"},
		{"bigtable://p/i/t/x", "4 part"},
		{"bigtable://p/i?x=1", `byte '?'`},
		{"bigtable://p/i#frag", `byte '#'`},
		{"bigtable://u@p/i", `byte '@'`},
		{"bigtable://p q/i", `byte ' '`},
		{"bigtable://p/i:1", `byte ':'`},
		{"bigtable://p/i/-t", "table"},
		{"bigtable://p/i/t:x", "table"},
		{"bigtable://p/i/" + strings.Repeat("t", 65), "at most 64"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseURL(tc.in)
			if err == nil {
				t.Fatalf("ParseURL(%q) = %#v, want an error", tc.in, got)
			}
			if !errors.Is(err, ErrInvalidURL) {
				t.Errorf("ParseURL(%q) error %v does not wrap ErrInvalidURL", tc.in, err)
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("ParseURL(%q) error %q does not mention %q", tc.in, err, tc.wantIn)
			}
		})
	}
}

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{
		"bigtable://p/i": true,
		"bigtable://":    true, // meant as a URL; ParseURL says what is wrong
		"./data":         false,
		"bigtable":       false,
		"bigtable:/p/i":  false,
	} {
		if got := IsURL(in); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzParseURL checks that whatever ParseURL accepts prints back to the
// same string and parses to the same URL, and that a rejection is always an
// ErrInvalidURL.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"bigtable://p/i", "bigtable://p/i/t", "bigtable://example.com:p/i/t", "bigtable://p/i/", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("ParseURL(%q) error %v does not wrap ErrInvalidURL", s, err)
			}
			return
		}
		if u.String() != s {
			t.Fatalf("ParseURL(%q).String() = %q, want the input back", s, u.String())
		}
		if u2, err := ParseURL(u.String()); err != nil || u2 != u {
			t.Fatalf("ParseURL(%q) = %#v, %v; want %#v", u.String(), u2, err, u)
		}
		if u.Project == "" || u.Instance == "" || strings.Contains(u.Table, "/") {
			t.Fatalf("ParseURL(%q) = %#v: empty project/instance or slash in table", s, u)
		}
	})
}
