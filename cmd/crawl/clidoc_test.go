package main

import (
	"github.com/webtable/webtable/internal/clidoc"

	"bytes"
	"context"
	"flag"
	"path/filepath"
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
	clidoc.Check(t, cliDocPath, "./cmd/crawl", b.Bytes(), *update)
}
