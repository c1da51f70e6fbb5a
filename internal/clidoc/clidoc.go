// Package clidoc keeps a program's generated command-line reference
// (docs/cli/*.md) equal to what its help prints: each program's TestCLIDoc
// builds the page from its help and hands it to Check.
package clidoc

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Check compares page with the file at path and fails t, naming the first
// line that differs, when they differ; with update it rewrites the file
// instead. pkg is the program's package ("./cmd/crawl"), for the command
// that regenerates the page.
func Check(t testing.TB, path, pkg string, page []byte, update bool) {
	t.Helper()
	regen := fmt.Sprintf("go test %s -run TestCLIDoc -update", pkg)
	if update {
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, regen)
	}
	if !bytes.Equal(page, want) {
		t.Errorf("%s is stale: it differs from the program's help (%s rewrites it)\n%s", path, regen, FirstDiff(page, want))
	}
}

// FirstDiff describes the first line where got and want differ.
func FirstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d:\n  help prints: %q\n  the file has: %q", i+1, gl, wl)
		}
	}
	return "the files differ"
}
