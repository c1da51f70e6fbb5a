package render

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLookPath: "" is DefaultExec; a program that is there is found, one
// that is not gives an error naming it.
func TestLookPath(t *testing.T) {
	if exe, _ := LookPath(""); exe != DefaultExec {
		t.Errorf("LookPath(\"\") = %q, want DefaultExec %q", exe, DefaultExec)
	}
	dir := t.TempDir()
	present := filepath.Join(dir, "chromium")
	if err := os.WriteFile(present, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if exe, err := LookPath(present); exe != present || err != nil {
		t.Errorf("LookPath(%q) = %q, %v; want it, nil", present, exe, err)
	}
	missing := filepath.Join(dir, "absent")
	if exe, err := LookPath(missing); exe != missing || err == nil {
		t.Errorf("LookPath(%q) = %q, %v; want it and an error", missing, exe, err)
	}
}
