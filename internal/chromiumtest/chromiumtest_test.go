package chromiumtest

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of
// ending the real one.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }

// TestNeed: with the browser present the test runs; without it the test
// fails when CI is set and is skipped otherwise.
func TestNeed(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "chromium")
	if err := os.WriteFile(present, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "absent")
	for _, tc := range []struct {
		exe, ci         string
		failed, skipped bool
	}{
		{present, "", false, false},
		{present, "true", false, false},
		{missing, "", false, true},
		{missing, "true", true, false},
		{missing, "1", true, false},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		need(r, tc.exe)
		if r.failed != tc.failed || r.skipped != tc.skipped {
			t.Errorf("need(%s) with CI=%q: failed %v, skipped %v; want failed %v, skipped %v", filepath.Base(tc.exe), tc.ci, r.failed, r.skipped, tc.failed, tc.skipped)
		}
	}
}
