package realweb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestManuals checks the manuals are served under their real names, over
// http only.
func TestManuals(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("HTTPS_PROXY", "")
	w := Manuals(t)
	c := w.Client()
	defer c.CloseIdleConnections()
	for _, m := range []Manual{Python, Postgres} {
		resp, index, err := get(t, c, m.Seed())
		if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %v, %v; want a 200 text/html", m.Seed(), resp, err)
		}
		if resp, _, err := get(t, c, strings.TrimSuffix(m.Prefix, "/")); err != nil || resp.StatusCode != 301 || resp.Header.Get("Location") != m.Prefix {
			t.Errorf("GET %s without its final /: %v, %v; want a 301 to %s", m.Prefix, resp, err, m.Prefix)
		}
		if _, dir, err := get(t, c, m.Prefix); err != nil || string(dir) != string(index) {
			t.Errorf("GET %s: %v; want the bytes of its index.html", m.Prefix, err)
		}
		https := "https" + strings.TrimPrefix(m.Seed(), "http")
		if _, _, err := get(t, c, https); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("GET %s: %v; want CONNECT refused (403)", https, err)
		}
		if !slices.Contains(w.Pages(), m.Seed()) {
			t.Errorf("Pages() lacks %s", m.Seed())
		}
	}
	if resp, _, err := get(t, c, "http://docs.python.org/2.7/index.html"); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET a page outside the served directory: %v, %v; want a 404", resp, err)
	}
	if _, _, err := get(t, c, "https://bugs.python.org/"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("GET https://bugs.python.org/: %v; want CONNECT refused (403)", err)
	}
	if len(w.Files()) <= len(w.Pages()) || len(w.Pages()) < 1000 {
		t.Errorf("%d files, %d pages: want over 1,000 pages and some files not pages", len(w.Files()), len(w.Pages()))
	}
}

// TestManualsOracle checks the oracle of the Python manual against a BFS
// through the proxy, and that every page it reaches is a file served.
func TestManualsOracle(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("HTTPS_PROXY", "")
	w := Manuals(t, Python)
	c := w.Client()
	defer c.CloseIdleConnections()
	reach := w.Reachable()
	served := map[string]bool{}
	for _, p := range w.Pages() {
		served[p] = true
	}
	for _, u := range reach {
		if !served[u] && !strings.HasSuffix(u, "/") {
			t.Errorf("Reachable() has %s, not in Pages()", u)
		}
	}
	// NB: links read by scanLinks, not by the tokenizer as in
	// TestOracleMatchesBFS; TestScanLinksManuals checks the two agree.
	pages, dead := bfs(t, w, c, scanLinks)
	var got []string
	for _, u := range pages {
		got = append(got, u)
	}
	slices.Sort(got)
	if diff := cmp.Diff(reach, got); diff != "" {
		t.Errorf("pages reached by a BFS through the proxy (+) differ from Reachable (-):\n%s", diff)
	}
	deadCount := map[string]int{}
	for o, keys := range dead {
		deadCount[o] = len(keys)
	}
	if diff := cmp.Diff(w.UnreachableOrigins(), deadCount); diff != "" {
		t.Errorf("origins the BFS could not fetch from (+) differ from UnreachableOrigins (-):\n%s", diff)
	}
	if w.UnreachableOrigins()["https://peps.python.org"] == 0 {
		t.Errorf("UnreachableOrigins() = %v, want https://peps.python.org among them", w.UnreachableOrigins())
	}
	t.Logf("%d pages served, %d reachable from %s; %d unreachable origins", len(w.Pages()), len(reach), Python.Seed(), len(w.UnreachableOrigins()))
}

// TestManualsMissing checks Manuals skips without the manuals, and fails
// under CI.
func TestManualsMissing(t *testing.T) {
	missing := Manual{Package: "no-such-doc", Dir: t.TempDir(), Prefix: "http://docs.example.org/"}
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		ft := &fakeTB{TB: t}
		func() {
			defer func() {
				if r := recover(); r != nil && !errors.Is(r.(error), errStop) {
					panic(r)
				}
			}()
			Manuals(ft, missing)
		}()
		if want := ci != "true"; ft.skipped != want || ft.failed == want {
			t.Errorf("CI=%q: Manuals skipped %v, failed %v; want skipped %v", ci, ft.skipped, ft.failed, want)
		}
		if !strings.Contains(ft.msg, "apt-get install -y no-such-doc") {
			t.Errorf("CI=%q: Manuals said %q, want the apt-get command", ci, ft.msg)
		}
	}
}

var errStop = errors.New("stopped")

// fakeTB records Skip and Fatal instead of ending the test.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skip(args ...any) {
	f.skipped, f.msg = true, fmt.Sprint(args...)
	panic(errStop)
}

func (f *fakeTB) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	panic(errStop)
}
