package clidoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeT records failures instead of failing the test that runs Check.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Errorf(format string, a ...any) { f.failed = format }
func (f *fakeT) Fatalf(format string, a ...any) { f.failed = format }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	page := []byte("# p\n\nline two\n")
	Check(t, path, "./cmd/p", page, true)
	Check(t, path, "./cmd/p", page, false) // equal: passes
	ft := &fakeT{TB: t}
	Check(ft, path, "./cmd/p", []byte("# p\n\nline 2\n"), false)
	if !strings.Contains(ft.failed, "stale") {
		t.Errorf("a stale page gave %q, want a failure saying it is stale", ft.failed)
	}
	if d := FirstDiff([]byte("a\nb\n"), []byte("a\nc\n")); !strings.Contains(d, "line 2") {
		t.Errorf("FirstDiff = %q, want line 2", d)
	}
	os.Remove(path)
	ft = &fakeT{TB: t}
	Check(ft, path, "./cmd/p", page, false)
	if ft.failed == "" {
		t.Error("a missing page passed")
	}
}
