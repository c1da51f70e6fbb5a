package main

import (
	"github.com/webtable/webtable/internal/clidoc"

	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// cliDocPath is the reference page generated from "query --help" and each
// "query SUBCOMMAND --help".
var cliDocPath = filepath.Join("..", "..", "docs", "cli", "query.md")

// TestCLIDoc keeps docs/cli/query.md equal to what the program's help
// prints, one section per subcommand in the order of the command table, so
// that the reference cannot drift from the program. After changing a
// subcommand, its flags or its help, go test ./cmd/query -run TestCLIDoc
// -update rewrites it.
func TestCLIDoc(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# query\n\n")
	b.WriteString("<!-- Generated from \"query --help\" and \"query SUBCOMMAND --help\" by TestCLIDoc\n")
	b.WriteString("     in cmd/query: do not edit. go test ./cmd/query -run TestCLIDoc -update rewrites it. -->\n\n")
	b.WriteString("`query` reads a WebTable and never changes it. See [querying](../querying.md) for a guided\n")
	b.WriteString("tour; this page is the program's own help.\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "- [query %s](#query-%s): %s\n", c.name, c.name, c.summary)
	}
	section := func(title string, args ...string) {
		code, stdout, stderr := runQuery(args...)
		if code != exitOK {
			t.Fatalf("query %v: exit status %d, want %d; stderr:\n%s", args, code, exitOK, stderr)
		}
		fmt.Fprintf(&b, "\n## %s\n\n```text\n%s```\n", title, stdout)
	}
	section("query", "--help")
	for _, c := range commands {
		section("query "+c.name, c.name, "--help")
	}
	clidoc.Check(t, cliDocPath, "./cmd/query", b.Bytes(), *update)
}
