package spaweb

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// serve answers a request to the site, counting it in hits and closing
// its waits at the first.
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
