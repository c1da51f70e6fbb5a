package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated docs/cli/crawl.md")

// cliDocPath is the reference page generated from "crawl --help".
var cliDocPath = filepath.Join("..", "..", "docs", "cli", "crawl.md")

// TestCLIDoc keeps docs/cli/crawl.md equal to what "crawl --help" prints,
// so that the reference cannot drift from the program. After changing a
// flag or the help text, go test ./cmd/crawl -run TestCLIDoc -update
// rewrites it.
func TestCLIDoc(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &out, &errb); code != exitOK {
		t.Fatalf("crawl --help: exit status %d, want %d; stderr:\n%s", code, exitOK, errb.String())
	}
	var b bytes.Buffer
	b.WriteString("# crawl\n\n")
	b.WriteString("<!-- Generated from \"crawl --help\" by TestCLIDoc in cmd/crawl: do not edit.\n")
	b.WriteString("     go test ./cmd/crawl -run TestCLIDoc -update rewrites it. -->\n\n")
	b.WriteString("`crawl` fetches pages into a WebTable. See [crawling](../crawling.md) for a guided tour;\n")
	b.WriteString("this page is the program's own `--help`.\n\n")
	b.WriteString("```text\n")
	b.Write(out.Bytes())
	b.WriteString("```\n")
	got := b.Bytes()

	if *update {
		if err := os.WriteFile(cliDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/crawl -run TestCLIDoc -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: it differs from crawl --help (go test ./cmd/crawl -run TestCLIDoc -update rewrites it)\n%s", cliDocPath, firstDiff(got, want))
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
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
