package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Built once by TestMain: the two programs and a demo WebTable.
var (
	binDir  string // holds the crawl and query binaries
	demoDB  string // a store made by "crawl --demo"
	demoErr error  // why the demo store could not be made
)

// TestMain builds both binaries and runs the real demo crawl once, so the
// tests read the table a newcomer's first command makes.
func TestMain(m *testing.M) {
	flag.Parse()
	tmp, err := os.MkdirTemp("", "query-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir, demoDB = filepath.Join(tmp, "bin"), filepath.Join(tmp, "demo.db")
	demoErr = buildAndCrawl()
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func buildAndCrawl() error {
	for _, prog := range []string{"crawl", "query"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, prog), "github.com/webtable/webtable/cmd/"+prog)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", prog, err, out)
		}
	}
	cmd := exec.Command(filepath.Join(binDir, "crawl"), "--demo", "--db", demoDB)
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("crawl --demo: %v\n%s", err, out)
	}
	return nil
}

// needDemo fails the test when the demo store could not be made.
func needDemo(t *testing.T) {
	t.Helper()
	trackSources.Do(statSources)
	if demoErr != nil {
		t.Fatalf("no demo store: %v", demoErr)
	}
}

// runQuery runs the program in-process.
func runQuery(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// Times and hashes that change from one crawl to the next are replaced in
// golden output, so the files show the layout a user sees.
var (
	rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	micros  = regexp.MustCompile(`"timestamp":\d+`)
	// The stored response headers hold the server's Date.
	headers = regexp.MustCompile(`\d+ B, sha256 [0-9a-f]{8}: HTTP/`)
	// So does contents:meta, which holds them after the status and URL.
	meta      = regexp.MustCompile(`\d+ B, sha256 [0-9a-f]{8}: 200 http`)
	unstable  = []*regexp.Regexp{rfc3339, micros, headers, meta}
	stableFor = map[*regexp.Regexp]string{rfc3339: "2026-01-02T03:04:05.678Z", micros: `"timestamp":1767323045678000`, headers: "144 B, sha256 a19fd2b7: HTTP/", meta: "168 B, sha256 e557ff52: 200 http"}
)

func normalise(s string) string {
	for _, re := range unstable {
		s = re.ReplaceAllString(s, stableFor[re])
	}
	return s
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	got = normalise(got)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/query -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./cmd/query -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

var trackSources sync.Once

// statSources stats every Go file of the module. NB: go test caches a
// passing result by the files its tests open or stat; the crawl binary
// these tests run is built in a child process, so without this a change to
// the crawler alone would leave a stale pass in the cache.
func statSources() {
	filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".html") || d.Name() == "go.mod") {
			os.Stat(path)
		}
		return nil
	})
}
