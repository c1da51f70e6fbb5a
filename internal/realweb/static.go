package realweb

import (
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Manual is an HTML manual that a Debian package installs, and the URL it
// is served under.
type Manual struct {
	// Package is the Debian package that installs it (apt-get install).
	Package string
	// Dir is the directory of its HTML files.
	Dir string
	// Prefix is the URL the directory is served as, ending in "/".
	Prefix string
}

// Seed returns the URL a crawl of the manual starts from, its
// index.html.
func (m Manual) Seed() string { return m.Prefix + "index.html" }

// The manuals of TestManuals, Debian 12's packages.
var (
	Python   = Manual{Package: "python3.11-doc", Dir: "/usr/share/doc/python3.11/html", Prefix: "http://docs.python.org/3.11/"}
	Postgres = Manual{Package: "postgresql-doc-15", Dir: "/usr/share/doc/postgresql-doc-15/html", Prefix: "http://www.postgresql.org/docs/15/"}
)

// Manuals serves ms ([Python] and [Postgres] when none is given) with
// [ServeDirs] until the test ends. When a manual is not installed it skips
// the test, unless the environment has CI=true: then it fails, naming the
// packages to install.
func Manuals(tb testing.TB, ms ...Manual) *Web {
	tb.Helper()
	if len(ms) == 0 {
		ms = []Manual{Python, Postgres}
	}
	dirs := map[string]string{}
	var missing []string
	for _, m := range ms {
		if _, err := os.Stat(filepath.Join(m.Dir, "index.html")); err != nil {
			missing = append(missing, m.Package)
		}
		dirs[m.Prefix] = m.Dir
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("realweb: manuals not installed (apt-get install -y %s)", strings.Join(missing, " "))
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	w, err := ServeDirs(dirs)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Close)
	return w
}

// ServeDirs serves each directory of dirs as static files under its URL
// prefix (an http:// URL ending in "/", such as
// http://docs.python.org/3.11/), through a proxy that answers plain http
// and refuses every CONNECT with 403: every https URL is unreachable, as
// on a network where port 443 is blocked. A directory's URL answers its
// index.html (without the final "/", a 301 to it); robots.txt is a 404;
// other hosts are closed (502). Its seeds are each prefix's index.html.
//
// The oracle walks the registrable domains of the prefixes' hosts (the
// last two labels: python.org, postgresql.org), as a crawl with the
// default --allow-domain does: links to https://bugs.python.org count in
// [Web.UnreachableOrigins].
func ServeDirs(dirs map[string]string) (*Web, error) {
	s := &static{}
	origins := map[string]Behaviour{}
	domains := map[string]bool{}
	for prefix, dir := range dirs {
		u, err := url.Parse(prefix)
		if err != nil || u.Scheme != "http" || u.Host == "" || !strings.HasSuffix(u.Path, "/") {
			return nil, fmt.Errorf("realweb: prefix %q is not an http:// URL ending in /", prefix)
		}
		hp := hostPort("http", u.Host)
		r := root{host: hp, path: u.Path, dir: dir, prefix: "http://" + hp + u.Path}
		if err := s.list(r); err != nil {
			return nil, err
		}
		s.roots = append(s.roots, r)
		origins["http://"+hp] = Serves
		origins["https://"+hostName(hp)] = Refused
		labels := strings.Split(hostName(hp), ".")
		domains[strings.Join(labels[max(0, len(labels)-2):], ".")] = true
	}
	// Longest prefix first, so a nested prefix wins.
	sort.Slice(s.roots, func(i, j int) bool { return len(s.roots[i].prefix) > len(s.roots[j].prefix) })
	sort.Strings(s.files)
	inWeb := func(hp string) bool {
		h := hostName(hp)
		for d := range domains {
			if h == d || strings.HasSuffix(h, "."+d) {
				return true
			}
		}
		return false
	}
	return start(s, origins, Refused, inWeb)
}

// static is the content of a web of directories.
type static struct {
	roots []root
	files []string // URL of every file served
}

type root struct {
	host, path, dir string
	prefix          string // http://host/path/
}

// list adds the URL of every regular file under r.dir (following links to
// files, not to directories) to s.files.
func (s *static) list(r root) error {
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return nil // a dangling or directory link
		}
		rel, _ := filepath.Rel(r.dir, p)
		s.files = append(s.files, r.prefix+filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return fmt.Errorf("realweb: listing %s: %w", r.dir, err)
	}
	return nil
}

func (s *static) seeds() []string {
	var out []string
	for _, r := range s.roots {
		if _, err := os.Stat(filepath.Join(r.dir, "index.html")); err == nil {
			out = append(out, r.prefix+"index.html")
		} else {
			out = append(out, r.prefix)
		}
	}
	sort.Strings(out)
	return out
}

func (s *static) robots(scheme, hp string) robotsFile { return robotsFile{} }

func (s *static) lookup(scheme, hp, p string) response {
	for _, r := range s.roots {
		if hp != r.host {
			continue
		}
		if p+"/" == r.path {
			return redirect(http.StatusMovedPermanently, r.prefix)
		}
		rel, ok := strings.CutPrefix(p, r.path)
		if !ok {
			continue
		}
		// NB: a rooted path cleaned has no ".." left: it cannot leave dir.
		f := filepath.Join(r.dir, filepath.FromSlash(path.Clean("/"+rel)))
		fi, err := os.Stat(f)
		if err != nil {
			return notFound
		}
		if fi.IsDir() {
			if !strings.HasSuffix(p, "/") {
				return redirect(http.StatusMovedPermanently, "http://"+hp+p+"/")
			}
			f = filepath.Join(f, "index.html")
			if fi, err = os.Stat(f); err != nil {
				return notFound
			}
		}
		if !fi.Mode().IsRegular() {
			return notFound
		}
		ct := mime.TypeByExtension(filepath.Ext(f))
		if ct == "" {
			ct = "application/octet-stream"
		}
		return response{status: http.StatusOK, ctype: ct, file: f}
	}
	return notFound
}

// Files returns the URL of every file a web of [ServeDirs] serves (pages,
// style sheets, images, sources), sorted; nil for a generated web.
func (w *Web) Files() []string {
	if s, ok := w.content.(*static); ok {
		return append([]string(nil), s.files...)
	}
	return nil
}

// Pages returns the URLs of [Web.Files] that are HTML pages (.html, .htm):
// what a crawl that stores every page the http origin serves must store.
func (w *Web) Pages() []string {
	var out []string
	for _, f := range w.Files() {
		if strings.HasSuffix(f, ".html") || strings.HasSuffix(f, ".htm") {
			out = append(out, f)
		}
	}
	return out
}
