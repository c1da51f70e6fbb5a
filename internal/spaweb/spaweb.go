// Package spaweb serves a generated single-page-application site for the
// tests and benchmarks of rendering: every page is the same empty shell,
// and its links and text are built by a script after load, so that only a
// crawler that renders finds more than the first page.
//
// The site has Pages pages /p/0 ... /p/N-1 (page i links to 2i+1 and
// 2i+2, a binary tree, so every page is reached from /), and pages that
// misbehave, each linked from /:
//
//	/timer   its link (/timer/found) is added 300 ms after load
//	/scroll  endless scrolling: items appended forever on a timer chain;
//	         the first item links to /scroll/found
//	/loop    a script that never returns, after adding a link (/loop/found)
//	/popup   opens popups (/popup/window) and links to /popup/found
//	/away    links to /away/found, then navigates to /away/gone
//	/errors  prints 5000 console errors and links to /errors/found
//	/download  links to /download/found, then clicks a link that
//	         downloads /files/report.bin (served as an attachment)
//
// and one linked from nowhere, for the renderer's own tests:
//
//	/alloc   allocates memory without bound until the tab dies
//
// Each page also asks for /private/data.json (disallowed by robots.txt)
// and for a script on Offsite (another host), which a crawl must refuse.
package spaweb

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Site is a running SPA site.
type Site struct {
	// URL is the site's root, http://127.0.0.1:port.
	URL string
	// Pages is how many tree pages (/p/i) it has.
	Pages int
	// Offsite is the other host's root, http://localhost:port: its requests
	// are counted in OffsiteHits.
	Offsite string

	srv, off *httptest.Server
	mu       sync.Mutex
	hits     map[string]int           // path -> requests
	waits    map[string]chan struct{} // path -> closed at its first request
	offHits  int
}

// Start serves a site of pages tree pages on 127.0.0.1; Close stops it.
func Start(pages int) *Site {
	s := &Site{Pages: pages, hits: map[string]int{}, waits: map[string]chan struct{}{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.off = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.offHits++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `document.body.insertAdjacentHTML("beforeend", '<a href="/offsite/found">offsite</a>');`)
	}))
	s.URL = s.srv.URL
	s.Offsite = strings.Replace(s.off.URL, "127.0.0.1", "localhost", 1)
	return s
}

// Close stops the servers.
func (s *Site) Close() {
	s.srv.Close()
	s.off.Close()
}

// Hits returns how often path was requested.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Requested returns a channel closed once path (with its query, if it
// has one: /api/page?path=/scroll is asked by the script of /scroll) was
// requested.
func (s *Site) Requested(path string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wait(path)
}

// wait returns the channel of path; s.mu is held.
func (s *Site) wait(path string) chan struct{} {
	ch, ok := s.waits[path]
	if !ok {
		ch = make(chan struct{})
		s.waits[path] = ch
		if s.hits[path] > 0 {
			close(ch)
		}
	}
	return ch
}

// OffsiteHits returns how many requests reached the other host.
func (s *Site) OffsiteHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offHits
}

// DownloadPath is the file the page /download downloads: served as an
// attachment, it must never reach the disk.
const DownloadPath = "/files/report.bin"

// Specials are the misbehaving pages, each linked from /.
var Specials = []string{"/timer", "/scroll", "/loop", "/popup", "/away", "/errors", "/download"}

// Found are the pages only a render finds, besides the tree pages: what
// the specials link to (the loop's link is made before it loops, but its
// document can never be read).
var Found = []string{"/timer/found", "/scroll/found", "/popup/found", "/away/found", "/errors/found", "/download/found"}

// Rendered returns the URLs a crawl of depth at least depth that renders
// every page fetches: /, the tree pages within depth, the specials and the
// pages they link to (never /away/gone, /popup/window, /loop/found or
// anything of Offsite).
func (s *Site) Rendered(depth int) []string {
	urls := []string{s.URL + "/"}
	for i := range s.Pages {
		if treeDepth(i)+1 <= depth {
			urls = append(urls, s.URL+"/p/"+strconv.Itoa(i))
		}
	}
	for _, p := range Specials {
		urls = append(urls, s.URL+p)
	}
	if depth >= 2 {
		for _, p := range Found {
			urls = append(urls, s.URL+p)
		}
	}
	return urls
}

// treeDepth is the depth of tree page i below /p/0 (0 for /p/0).
func treeDepth(i int) int {
	d := 0
	for i > 0 {
		i = (i - 1) / 2
		d++
	}
	return d
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	for _, p := range []string{r.URL.Path, r.URL.RequestURI()} {
		if s.hits[p]++; s.hits[p] == 1 {
			if ch, ok := s.waits[p]; ok {
				close(ch)
			}
		}
		if r.URL.RawQuery == "" {
			break
		}
	}
	s.mu.Unlock()
	switch p := r.URL.Path; {
	case p == "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	case p == "/app.js":
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, appJS)
	case p == "/api/page":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.pageData(r.URL.Query().Get("path")))
	case p == DownloadPath:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="report.bin"`)
		fmt.Fprint(w, "a file no crawl may save")
	case strings.HasPrefix(p, "/private/"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"secret": true}`)
	default:
		if !s.known(p) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, shellHTML, s.Offsite)
	}
}

// known reports whether path is a page of the site.
func (s *Site) known(p string) bool {
	if p == "/" || p == "/away/gone" || p == "/popup/window" || p == "/loop/found" || p == "/alloc" {
		return true
	}
	for _, q := range append(Specials[:len(Specials):len(Specials)], Found...) {
		if p == q {
			return true
		}
	}
	if n, ok := strings.CutPrefix(p, "/p/"); ok {
		i, err := strconv.Atoi(n)
		return err == nil && i >= 0 && i < s.Pages && strconv.Itoa(i) == n
	}
	return false
}

// pageData is what /api/page answers for a page: its title, text and links.
type pageData struct {
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Links []string `json:"links"`
	Kind  string   `json:"kind"`
}

func (s *Site) pageData(path string) pageData {
	d := pageData{Title: "Page " + path, Text: "Text of " + path + ", built by a script.", Kind: "plain", Links: []string{}}
	switch {
	case path == "/":
		if s.Pages > 0 {
			d.Links = append(d.Links, "/p/0")
		}
		d.Links = append(d.Links, Specials...)
	case strings.HasPrefix(path, "/p/"):
		i, _ := strconv.Atoi(strings.TrimPrefix(path, "/p/"))
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < s.Pages {
				d.Links = append(d.Links, "/p/"+strconv.Itoa(c))
			}
		}
	case path == "/alloc":
		d.Kind = "alloc"
	default:
		for _, sp := range Specials {
			if path == sp {
				d.Kind = strings.TrimPrefix(sp, "/")
				d.Links = []string{sp + "/found"}
			}
		}
	}
	return d
}

// shellHTML is every page as served: no text, no links.
const shellHTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>SPA</title>
<script src="/app.js"></script>
<script src="%s/track.js" async></script>
</head><body><div id="app">Loading…</div></body></html>
`

// appJS builds each page from /api/page after load.
const appJS = `
fetch("/private/data.json").catch(() => {});
window.addEventListener("load", async () => {
  const r = await fetch("/api/page?path=" + encodeURIComponent(location.pathname));
  const d = await r.json();
  const app = document.getElementById("app");
  const link = (href) => '<li><a href="' + href + '">' + href + '</a></li>';
  const list = (links) => '<ul>' + links.map(link).join("") + '</ul>';
  document.title = d.title;
  switch (d.kind) {
  case "timer":
    app.innerHTML = "<p>" + d.text + "</p>";
    setTimeout(() => { app.insertAdjacentHTML("beforeend", list(d.links)); }, 300);
    break;
  case "scroll":
    app.innerHTML = list(d.links);
    let n = 0;
    const more = () => { app.insertAdjacentHTML("beforeend", "<p>item " + (n++) + "</p>"); setTimeout(more, 50); };
    more();
    break;
  case "loop":
    app.innerHTML = list(d.links);
    setTimeout(() => { for (;;) {} }, 0);
    break;
  case "popup":
    app.innerHTML = "<p>" + d.text + "</p>" + list(d.links);
    window.open("/popup/window");
    window.open("/popup/window", "_blank");
    break;
  case "away":
    app.innerHTML = list(d.links);
    location.href = "/away/gone";
    break;
  case "alloc":
    const hog = [];
    for (;;) hog.push(new Array(1 << 20).fill(hog.length));
  case "download":
    app.innerHTML = list(d.links);
    const a = document.createElement("a");
    a.href = "/files/report.bin";
    a.download = "report.bin";
    document.body.appendChild(a);
    a.click();
    a.remove(); // the download is the test, not a link to follow
    break;
  case "errors":
    for (let i = 0; i < 5000; i++) console.error("error " + i);
    app.innerHTML = list(d.links);
    break;
  default:
    app.innerHTML = "<h1>" + d.title + "</h1><p>" + d.text + "</p>" + list(d.links);
  }
});
`
