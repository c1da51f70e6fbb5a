package main

import (
	"github.com/webtable/webtable/internal/clidoc"

	"bytes"
	"context"
	"flag"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli/index.md")

// cliDocPath is the reference page generated from "index --help".
var cliDocPath = filepath.Join("..", "..", "docs", "cli", "index.md")

// TestCLIDoc keeps docs/cli/index.md equal to what "index --help" prints,
// as cmd/query's TestCLIDoc does for query (go test ./cmd/index -run
// TestCLIDoc -update rewrites it).
func TestCLIDoc(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("index --help = %d: %s", code, errb.String())
	}
	// NB: --workers defaults to the machine's cores.
	help := strings.ReplaceAll(out.String(), "(default "+strconv.Itoa(runtime.GOMAXPROCS(0))+")", "(default: the cores)")
	var b bytes.Buffer
	b.WriteString("# index\n\n")
	b.WriteString("<!-- Generated from \"index --help\" by TestCLIDoc in cmd/index: do not edit.\n")
	b.WriteString("     go test ./cmd/index -run TestCLIDoc -update rewrites it. -->\n\n")
	b.WriteString("`index` runs the indexing jobs over a WebTable. See [the indexing jobs](../index-jobs.md)\n")
	b.WriteString("for how they work and what they measured; this page is the program's own help.\n\n")
	b.WriteString("```text\n" + help + "```\n")
	clidoc.Check(t, cliDocPath, "./cmd/index", b.Bytes(), *update)
}
