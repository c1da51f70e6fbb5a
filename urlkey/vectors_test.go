package urlkey_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// vectorsFile is the copy of the shared test vectors kept in the repository,
// so that a fresh clone tests them.
const vectorsFile = "testdata/vectors.tsv"

type vector struct {
	line     int
	in, want string // want is "ERROR" for a refused URL
}

func readVectors(t *testing.T, name string) []vector {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		in, want, ok := strings.Cut(line, "\t")
		if !ok || strings.Contains(want, "\t") {
			t.Fatalf("%s:%d: want two tab-separated fields, got %q", name, n, line)
		}
		vs = append(vs, vector{n, in, want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return vs
}

// TestVectors runs every vector of testdata/vectors.tsv through Key.
func TestVectors(t *testing.T) {
	for _, v := range readVectors(t, vectorsFile) {
		got, err := urlkey.Key(v.in)
		if v.want == "ERROR" {
			if err == nil {
				t.Errorf("%s:%d: Key(%q) = %q, want an error", vectorsFile, v.line, v.in, got)
			} else if e := (*urlkey.Error)(nil); !errors.As(err, &e) || e.URL != v.in {
				t.Errorf("%s:%d: Key(%q) error %v is not an *Error holding the input", vectorsFile, v.line, v.in, err)
			}
			continue
		}
		if err != nil || got != v.want {
			t.Errorf("%s:%d: Key(%q) = %q, %v, want %q", vectorsFile, v.line, v.in, got, err, v.want)
		}
	}
}

// TestVectorsCopyIsCurrent checks that testdata/vectors.tsv still equals
// ../shared/urlkey/vectors.tsv beside the checkout, where the vectors are
// maintained; copy it again if this fails.
func TestVectorsCopyIsCurrent(t *testing.T) {
	root := repoRoot(t)
	shared := filepath.Join(root, "..", "shared", "urlkey", "vectors.tsv")
	want, err := os.ReadFile(shared)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no shared vectors at %s (a clone outside the work area): nothing to compare the copy with; the other tests use the copy", shared)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s: run cp %s urlkey/%s", vectorsFile, shared, shared, vectorsFile)
	}
}

// repoRoot returns the directory holding go.mod, found from the package
// directory (where go test runs) upwards.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package directory")
		}
		dir = parent
	}
}
