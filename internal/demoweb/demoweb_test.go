package demoweb

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// proxyClient sends every request through s as an HTTP proxy.
func proxyClient(t *testing.T, s *Server) *http.Client {
	t.Helper()
	pu, err := url.Parse(s.ProxyURL())
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
}

func get(t *testing.T, c *http.Client, u string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestServe(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q, want loopback", s.URL())
	}
	c := proxyClient(t, s)
	tests := []struct {
		url      string
		status   int
		contains string
	}{
		{"http://www.cnn.com/", 200, "Edition 1"},
		{"http://www.cnn.com/robots.txt", 200, "Disallow: /private/"},
		{"http://www.cnn.com/world/", 200, "summit.html"},
		{"http://www.cnn.com/world/2026/11/30/summit.html", 200, "World leaders"},
		{"http://www.cnn.com/home.html", 404, ""},
		{"http://www.cnn.com/nope", 404, ""},
		{"http://cnnsi.com/", 200, `<a href="http://www.cnn.com/">CNN</a>`},
		{"http://my.look.ca/", 200, `<a href="http://www.cnn.com/">CNN.com</a>`},
		{"http://www.example.org/", 502, "unknown host"},
	}
	for _, tc := range tests {
		status, _, body := get(t, c, tc.url, nil)
		if status != tc.status || !strings.Contains(body, tc.contains) {
			t.Errorf("GET %s = %d %.60q, want %d containing %q", tc.url, status, body, tc.status, tc.contains)
		}
	}
}

func TestPassesAndETag(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := proxyClient(t, s)
	seen := map[string]bool{}
	for pass := 1; pass <= 3; pass++ {
		s.SetPass(pass)
		_, h, body := get(t, c, "http://www.cnn.com/", nil)
		if seen[body] {
			t.Errorf("pass %d serves the same home page as an earlier pass", pass)
		}
		seen[body] = true
		status, _, _ := get(t, c, "http://www.cnn.com/", map[string]string{"If-None-Match": h.Get("ETag")})
		if status != http.StatusNotModified {
			t.Errorf("pass %d: conditional GET = %d, want 304", pass, status)
		}
	}
	if got := Seeds(); len(got) != 3 || got[0] != "http://www.cnn.com/" {
		t.Errorf("Seeds() = %q", got)
	}
}
