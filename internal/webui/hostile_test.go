package webui

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestHostileContentRendersHarmlessly reads the views that show a hostile
// page's data (its row, its links, its anchors on another page, its body)
// and checks that nothing of it reaches the interface's HTML as markup.
func TestHostileContentRendersHarmlessly(t *testing.T) {
	_, srv := serve(t, fixture(t, 0), Options{})
	var evil jsonPage
	getJSON(t, srv, "/page?url=http://evil.test/", &evil)
	if len(evil.Versions) != 1 {
		t.Fatalf("evil.test has %d versions, want 1", len(evil.Versions))
	}
	ts := evil.Versions[0].Timestamp
	for _, path := range []string{"/page?url=http://evil.test/", "/page?url=http://www.cnn.com/", "/domain?name=evil.test",
		"/page?url=http://evil.test/pic.svg", "/errors", "/", "/domain?name=cnn.com"} {
		t.Run(path, func(t *testing.T) {
			resp, body := get(t, srv, path, false)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
			}
			for _, bad := range []string{"<script", "<base", "javascript:", "http-equiv", "attacker.test/steal", "<svg><script", "<img"} {
				if strings.Contains(strings.ToLower(body), bad) {
					t.Errorf("GET %s: the page holds %q as markup", path, bad)
				}
			}
			if n, m := strings.Count(body, "<iframe"), strings.Count(body, "</iframe>"); n != m {
				t.Errorf("GET %s: %d <iframe> but %d </iframe>: stored text closed a frame", path, n, m)
			}
			for _, f := range regexp.MustCompile(`<form[^>]*>`).FindAllString(body, -1) {
				if f != `<form method="get" action="/diff">` && f != `<form class="find" action="/search" method="get" role="search">` {
					t.Errorf("GET %s: a form that is not the interface's: %s", path, f)
				}
			}
			for _, f := range regexp.MustCompile(`<iframe[^>]*>`).FindAllString(body, -1) {
				if !regexp.MustCompile(`\ssandbox[\s>]`).MatchString(f) || strings.Contains(f, "allow-") {
					t.Errorf("GET %s: a frame without a full sandbox: %s", path, f)
				}
			}
			for _, h := range regexp.MustCompile(`(?:href|src|action)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
				if !strings.HasPrefix(h[1], "/") || strings.HasPrefix(h[1], "//") {
					t.Errorf("GET %s: a link out of the interface: %s", path, h[0])
				}
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
				t.Errorf("GET %s: Content-Security-Policy %q, want default-src 'none' and no script source", path, csp)
			}
		})
	}
	// The anchor text that tries to close the table and the frame is text.
	_, cnn := get(t, srv, "/page?url=http://www.cnn.com/", false)
	if !strings.Contains(cnn, "&lt;/td&gt;&lt;/iframe&gt;&lt;script&gt;") {
		t.Errorf("the hostile anchor text is not shown escaped on www.cnn.com's page")
	}
	// The body itself: as stored, but in a sandbox that runs and loads nothing.
	resp, body := get(t, srv, "/body?url=http://evil.test/&ts="+itoa(ts), false)
	if resp.StatusCode != http.StatusOK || body != hostile {
		t.Fatalf("GET /body of evil.test: %s, %d bytes, want the %d stored", resp.Status, len(body), len(hostile))
	}
	checkBodyHeaders(t, resp, "text/html; charset=utf-8")
}

func checkBodyHeaders(t *testing.T, resp *http.Response, ctype string) {
	t.Helper()
	if got := resp.Header.Get("Content-Security-Policy"); got != "sandbox; default-src 'none'" {
		t.Errorf("body Content-Security-Policy = %q, want %q", got, "sandbox; default-src 'none'")
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("body X-Content-Type-Options = %q, want nosniff", got)
	}
	if got := resp.Header.Get("Content-Type"); got != ctype {
		t.Errorf("body Content-Type = %q, want %q", got, ctype)
	}
}

// TestNonHTMLBodyIsPlainText checks that an SVG with a script is served as
// text, never as an image or a document.
func TestNonHTMLBodyIsPlainText(t *testing.T) {
	_, srv := serve(t, fixture(t, 0), Options{})
	var svg jsonPage
	getJSON(t, srv, "/page?url=http://evil.test/pic.svg", &svg)
	if len(svg.Versions) != 1 || svg.MIME != "image/svg+xml" {
		t.Fatalf("pic.svg: %d versions, MIME %q; want 1 and image/svg+xml", len(svg.Versions), svg.MIME)
	}
	resp, _ := get(t, srv, "/body?row=test.evil/pic.svg&ts="+itoa(svg.Versions[0].Timestamp), false)
	checkBodyHeaders(t, resp, "text/plain; charset=utf-8")
}

func TestBadRequests(t *testing.T) {
	_, srv := serve(t, fixture(t, 0), Options{})
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/page", 400, "row=KEY"},
		{"/page?url=ftp://x/", 400, "url"},
		{"/page?row=com.nowhere/", 404, "no row &#34;com.nowhere/&#34;"},
		{"/page?row=com.cnn.www/&v=12", 404, "no version at 12"},
		{"/page?row=com.cnn.www/&v=abc", 400, "timestamp in microseconds"},
		{"/diff?row=com.cnn.www/", 400, "a=MICROSECONDS"},
		{"/body?row=com.cnn.www/", 400, "ts=MICROSECONDS"},
		{"/body?row=com.cnn.www/&ts=5", 404, "no version at 5"},
		{"/domain?name=a%20b", 400, "not a domain name"},
		{"/errors?domain=a%20b", 400, "not a domain name"},
		{"/nothing", 404, ""},
	}
	for _, tc := range tests {
		resp, body := get(t, srv, tc.path, false)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %s, body %q; want %d and %q", tc.path, resp.Status, body, tc.status, tc.want)
		}
		if tc.status == 404 && tc.want == "" {
			continue
		}
		resp, body = get(t, srv, tc.path, true)
		if resp.StatusCode != tc.status || !strings.Contains(body, `"error"`) {
			t.Errorf("GET %s as JSON: %s, body %q; want %d and an error field", tc.path, resp.Status, body, tc.status)
		}
	}
}
