package seeds

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		badLine []int
		wantErr error
	}{
		{"one", "http://www.cnn.com/\n", []string{"http://www.cnn.com/"}, nil, nil},
		{"no final newline", "http://www.cnn.com/", []string{"http://www.cnn.com/"}, nil, nil},
		{"comments and blanks", "# c\n\n   \n  # indented\nhttp://a.example/ # trailing\n", []string{"http://a.example/"}, nil, nil},
		{"crlf", "http://a.example/x\r\nhttps://b.example/\r\n", []string{"http://a.example/x", "https://b.example/"}, nil, nil},
		{"bad lines kept going", "http://a.example/\nmailto:x@y.z\nnot a url\nhttps://b.example/\n", []string{"http://a.example/", "https://b.example/"}, []int{2, 3}, nil},
		{"no host", "http:///x\nhttp://ok.example/\n", []string{"http://ok.example/"}, []int{1}, nil},
		{"duplicates once", "http://a.example/\nhttp://A.EXAMPLE/\n", []string{"http://a.example/"}, nil, nil},
		{"hash inside URL kept", "http://a.example/p#frag\n", []string{"http://a.example/p"}, nil, nil},
		{"bom", "\ufeffhttp://a.example/\n", []string{"http://a.example/"}, nil, nil},
		{"empty", "", nil, nil, ErrNoSeeds},
		{"only comments", "# nothing\n\n", nil, nil, ErrNoSeeds},
		{"all bad", "ftp://x.example/\n", nil, []int{1}, ErrNoSeeds},
		{"too long", "http://a.example/" + strings.Repeat("a", maxLine) + "\nhttp://b.example/\n", []string{"http://b.example/"}, []int{1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, bad, err := Parse(strings.NewReader(tc.in), "list.txt")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Parse(%q) error = %v, want %v", tc.in, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, URLs(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse(%q) seeds (-want +got):\n%s", tc.in, diff)
			}
			var lines []int
			for _, b := range bad {
				lines = append(lines, b.Line)
				if !strings.HasPrefix(b.Error(), "list.txt:") {
					t.Errorf("bad line error %q does not start with file:line", b.Error())
				}
			}
			if diff := cmp.Diff(tc.badLine, lines); diff != "" {
				t.Errorf("Parse(%q) bad lines (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestLineErrorFormat(t *testing.T) {
	_, bad, _ := Parse(strings.NewReader("http://ok.example/\n\nfile:///etc/passwd\n"), "s.txt")
	if len(bad) != 1 {
		t.Fatalf("got %d bad lines, want 1", len(bad))
	}
	if got := bad[0].Error(); !strings.HasPrefix(got, `s.txt:3: `) || !strings.Contains(got, "file:///etc/passwd") {
		t.Errorf("LineError = %q, want s.txt:3: and the offending URL", got)
	}
	if bad[0].Unwrap() == nil {
		t.Error("LineError.Unwrap() = nil, want the urlkey error")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	if err := os.WriteFile(good, []byte("http://www.cnn.com/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := Load(good)
	if err != nil || len(s) != 1 {
		t.Fatalf("Load(good) = %v, %v; want 1 seed", s, err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(empty); !errors.Is(err, ErrNoSeeds) {
		t.Errorf("Load(empty) error = %v, want ErrNoSeeds", err)
	}
	if _, _, err := Load(filepath.Join(dir, "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) error = %v, want os.ErrNotExist", err)
	} else if !strings.HasPrefix(err.Error(), "seeds: ") {
		t.Errorf("Load(missing) error = %q, want prefix \"seeds: \"", err)
	}
}

func TestDefault(t *testing.T) {
	s, bad, err := Load("default.txt")
	if err != nil || len(bad) != 0 {
		t.Fatalf("Load(default.txt) = bad %v, err %v", bad, err)
	}
	if len(s) < 15 {
		t.Errorf("default.txt has %d seeds, want about 20", len(s))
	}
	if len(Default()) != len(s) {
		t.Errorf("Default() has %d seeds, file has %d", len(Default()), len(s))
	}
}

func FuzzParse(f *testing.F) {
	f.Add("http://www.cnn.com/\n# c\n\nhttps://a.example/x # t\n")
	f.Add("mailto:x\r\nhttp://[::1]:8080/\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, bad, err := Parse(strings.NewReader(in), "f")
		if err != nil && len(got) != 0 {
			t.Fatalf("Parse returned %d seeds and error %v", len(got), err)
		}
		seen := map[string]bool{}
		for _, s := range got {
			if seen[s.URL] {
				t.Fatalf("duplicate seed %q", s.URL)
			}
			seen[s.URL] = true
			// A seed is canonical: parsing it again yields itself.
			again, _, err := Parse(strings.NewReader(s.URL), "again")
			if err != nil || len(again) != 1 || again[0].URL != s.URL {
				t.Fatalf("seed %q does not re-parse to itself: %v %v", s.URL, again, err)
			}
		}
		for _, b := range bad {
			if b.Line < 1 {
				t.Fatalf("bad line number %d", b.Line)
			}
		}
	})
}
