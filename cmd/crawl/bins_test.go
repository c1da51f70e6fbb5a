package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// bins holds the programs the tests run as processes, each built once
// for the whole package (a build costs seconds: 8.6 s for crawl on the
// loaded shared machine), in a directory TestMain removes.
var bins struct {
	dir   string
	mu    sync.Mutex
	built map[string]*builtBin
}

type builtBin struct {
	once sync.Once
	path string
	err  error
}

// TestMain runs the tests with a directory for the programs they build.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "webtable-crawl-bins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bins.dir, bins.built = dir, map[string]*builtBin{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedBin returns the program cmd/name, built at the first call of the
// package's tests; the tests run it, none changes it.
func sharedBin(t *testing.T, name string) string {
	t.Helper()
	bins.mu.Lock()
	b := bins.built[name]
	if b == nil {
		b = &builtBin{}
		bins.built[name] = b
	}
	bins.mu.Unlock()
	b.once.Do(func() {
		b.path = filepath.Join(bins.dir, name)
		out, err := exec.Command("go", "build", "-o", b.path, "github.com/webtable/webtable/cmd/"+name).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
