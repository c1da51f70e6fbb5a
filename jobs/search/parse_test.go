package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Query
	}{
		{"web crawler", Query{Words: []string{"web", "crawler"}}},
		{`"web crawler"`, Query{Phrases: []string{"web crawler"}}},
		{`crawler -spider -"bad  bot"`, Query{Words: []string{"crawler"}, Excluded: []string{"spider", "bad bot"}}},
		{"news site:CNN.com.", Query{Words: []string{"news"}, Sites: []string{"cnn.com"}}},
		{`a"b c"d`, Query{Words: []string{"a", "d"}, Phrases: []string{"b c"}}},
		{"naïve café", Query{Words: []string{"naïve", "café"}}},
		{"x -site:y", Query{Words: []string{"x"}, Excluded: []string{"site:y"}}},
		{"SQL — Embedded & C", Query{Words: []string{"SQL", "Embedded", "C"}}},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		char int
		msg  string
	}{
		{`foo "bar`, 5, "unclosed quote"},
		{`é "bar`, 3, "unclosed quote"},
		{"foo -", 5, `a "-" excludes`},
		{"foo site:", 5, "site: needs"},
		{`foo ""`, 5, "empty phrase"},
		{"-foo", 5, "nothing to search for"},
		{"site:cnn.com", 13, "nothing to search for"},
		{"", 1, "nothing to search for"},
		{"*** —", 6, "nothing to search for"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Char != tc.char || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%q) = %v, want a SyntaxError at character %d saying %q", tc.in, err, tc.char, tc.msg)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if want := "  " + strings.Repeat(" ", tc.char-1) + "^"; len(lines) != 3 || lines[2] != want {
			t.Errorf("Parse(%q) error %q does not point at character %d", tc.in, err, tc.char)
		}
	}
}

// FuzzParse checks that any input parses or fails with a SyntaxError
// pointing inside it, and that a parsed query prints back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"web crawler", `"a b" -c site:d.e`, `x "`, "-", `a"b"c`, "é -\"ü\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Char < 1 || se.Char > len([]rune(s))+1 {
				t.Fatalf("Parse(%q) = %v, want a SyntaxError inside the query", s, err)
			}
			return
		}
		again, err := Parse(q.String())
		if err != nil || !reflect.DeepEqual(again, q) {
			t.Fatalf("Parse(%q) = %+v; its String %q parses to %+v, %v", s, q, q.String(), again, err)
		}
	})
}
