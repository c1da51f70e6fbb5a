package main

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/internal/realweb"
	"github.com/webtable/webtable/internal/spaweb"
)

// TestRenderAutoRule measures the rule of --render auto
// (extract.LooksLikeShell) where its answer is known: every page of the
// SPA site is a shell its scripts fill in, and no page of the Python 3.11
// and PostgreSQL 15 manuals needs a browser. Each wrong answer is an
// error of the rule; docs/rendering.md reports the counts.
func TestRenderAutoRule(t *testing.T) {
	// NB: CPU on the manuals beside the browser tests' waiting.
	t.Parallel()
	site := spaweb.Start(15)
	defer site.Close()
	var missed []string
	for _, u := range site.Rendered(10) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !extract.LooksLikeShell(body, resp.Header.Get("Content-Type")) {
			missed = append(missed, u)
		}
	}
	t.Logf("SPA site: %d of %d pages look like shells", len(site.Rendered(10))-len(missed), len(site.Rendered(10)))
	if len(missed) > 0 {
		t.Errorf("--render auto would not render %d of the SPA site's %d pages: %v", len(missed), len(site.Rendered(10)), missed)
	}
	realweb.Manuals(t) // skips (fails in CI) unless installed
	for _, m := range []realweb.Manual{realweb.Python, realweb.Postgres} {
		var pages int
		var shells []string
		err := filepath.WalkDir(m.Dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
				return err
			}
			body, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pages++
			if extract.LooksLikeShell(body, "text/html") {
				shells = append(shells, strings.TrimPrefix(path, m.Dir))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d of %d pages look like shells", m.Package, len(shells), pages)
		if len(shells) > 0 {
			t.Errorf("%s: --render auto would render %d of %d pages, which need no browser: %v", m.Package, len(shells), pages, shells[:min(5, len(shells))])
		}
	}
}
