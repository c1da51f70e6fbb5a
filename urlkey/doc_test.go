package urlkey_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

var sentinels = map[string]error{
	"ErrScheme":      urlkey.ErrScheme,
	"ErrNoHost":      urlkey.ErrNoHost,
	"ErrBadHost":     urlkey.ErrBadHost,
	"ErrHostTooLong": urlkey.ErrHostTooLong,
	"ErrBadPort":     urlkey.ErrBadPort,
	"ErrKeyTooLong":  urlkey.ErrKeyTooLong,
	"ErrBadKey":      urlkey.ErrBadKey,
}

// TestDocRules runs the "input -> output" lines of the Rules section of
// doc.go, so the documented rules cannot drift from the code.
func TestDocRules(t *testing.T) {
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rules, ok := strings.Cut(string(data), "// # Rules\n")
	if !ok {
		t.Fatal("doc.go has no # Rules section")
	}
	rules, _, _ = strings.Cut(rules, "// # Caveats\n")
	n := 0
	for _, line := range strings.Split(rules, "\n") {
		ex, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			continue
		}
		i := strings.LastIndex(ex, " -> ")
		if i < 0 {
			t.Errorf("doc.go: example %q has no \" -> \"", ex)
			continue
		}
		in, want := ex[:i], ex[i+len(" -> "):]
		n++
		got, err := urlkey.Key(in)
		if sentinel, isErr := sentinels[want]; isErr {
			if !errors.Is(err, sentinel) {
				t.Errorf("doc.go: Key(%q) = %q, %v, want error %v", in, got, err, sentinel)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("doc.go: Key(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	if n < 40 {
		t.Errorf("doc.go: found %d rule examples, want at least 40", n)
	}
}
