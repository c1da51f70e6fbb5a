package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestHelpGolden checks index --help against testdata/help.golden
// (regenerate with go test ./cmd/index -run HelpGolden -update).
func TestHelpGolden(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("index --help = %d: %s", code, errb.String())
	}
	// NB: --workers defaults to the machine's cores.
	got := strings.ReplaceAll(out.String(), "(default "+strconv.Itoa(runtime.GOMAXPROCS(0))+")", "(default CORES)")
	path := filepath.Join("testdata", "help.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("index --help differs from %s (run with -update if the change is meant):\n%s", path, got)
	}
}
