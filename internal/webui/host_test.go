package webui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/webtable"
)

// TestHostHeader checks which Host headers the interface answers: its
// listen address and loopback names with its port, not a name pointed at
// this machine by a web page (DNS rebinding), which gets 421.
func TestHostHeader(t *testing.T) {
	w := fixture(t, 0)
	tests := []struct {
		listen string
		ok     []string
		no     []string
	}{
		{"127.0.0.1:8080",
			[]string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST.:08080", "[::1]:8080", "127.0.0.2:8080"},
			[]string{"evil.example:8080", "evil.example", "localhost:8081", "localhost", "127.0.0.1", "10.0.0.1:8080", "localhost.evil.example:8080", "", "127.0.0.1:8080:8080"}},
		{"[::1]:9000",
			[]string{"[::1]:9000", "localhost:9000", "127.0.0.1:9000"},
			[]string{"rebind.example:9000", "[::2]:9000"}},
		{"127.0.0.1:80",
			[]string{"127.0.0.1", "localhost", "localhost:80"},
			[]string{"evil.example"}},
		{"0.0.0.0:8080", // --allow-remote on every interface: IP literals only
			[]string{"192.0.2.7:8080", "localhost:8080", "[2001:db8::1]:8080"},
			[]string{"evil.example:8080", "192.0.2.7:8081"}},
		{"192.0.2.7:8080",
			[]string{"192.0.2.7:8080", "localhost:8080"},
			[]string{"192.0.2.8:8080", "evil.example:8080"}},
	}
	for _, tc := range tests {
		ui, err := New(w, Options{ListenAddr: tc.listen})
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range append(tc.ok, tc.no...) {
			req := httptest.NewRequest("GET", "/tablets", nil)
			req.Host = host
			rec := httptest.NewRecorder()
			ui.ServeHTTP(rec, req)
			want := http.StatusOK
			if host == "" || !contains(tc.ok, host) {
				want = http.StatusMisdirectedRequest
			}
			if rec.Code != want {
				t.Errorf("listening on %s, Host %q: status %d, want %d", tc.listen, host, rec.Code, want)
			}
		}
		ui.Close()
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestRefreshAskedAtMostOnceAMinute asks for a new summary (?refresh=1)
// again and again: a build starts only when the last one started a minute
// ago or more.
func TestRefreshAskedAtMostOnceAMinute(t *testing.T) {
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	ui, srv := serve(t, fixture(t, 0), Options{Now: clock, SummaryMaxAge: time.Hour})
	builds := func() time.Time {
		ui.sum.mu.Lock()
		defer ui.sum.mu.Unlock()
		return ui.sum.started
	}
	first := builds()
	for _, step := range []struct {
		advance time.Duration
		rebuild bool
	}{
		{0, false},
		{10 * time.Second, false},
		{49 * time.Second, false}, // 59 s after the first build started
		{time.Second, true},       // 60 s
		{time.Second, false},      // 1 s after the second
	} {
		advance(step.advance)
		last := builds()
		for range 3 {
			get(t, srv, "/?refresh=1", false)
		}
		if err := ui.WaitSummary(t.Context()); err != nil {
			t.Fatal(err)
		}
		if rebuilt := builds() != last; rebuilt != step.rebuild {
			t.Fatalf("%v after the build of %v: rebuilt %v, want %v", now.Sub(last), last.Sub(first), rebuilt, step.rebuild)
		}
	}
}

// TestPageAnchorsPaged: a page linked from more pages than a view lists
// shows its incoming anchors a page at a time, each once, HTML and JSON.
func TestPageAnchorsPaged(t *testing.T) {
	w := fixture(t, 0)
	const n = 2*anchorsPerPage + 7
	for i := range n {
		if _, err := w.AddLinks(t.Context(), fmt.Sprintf("http://r%04d.example/", i), []webtable.Anchor{{URL: "http://www.cnn.com/", Text: "to cnn"}}, nil, stamp); err != nil {
			t.Fatal(err)
		}
	}
	_, srv := serve(t, w, Options{})
	seen := map[string]bool{}
	path := "/page?row=com.cnn.www/"
	for pages := 0; ; pages++ {
		var p jsonPage
		getJSON(t, srv, path, &p)
		if len(p.Anchors) > anchorsPerPage {
			t.Fatalf("%s lists %d anchors, want at most %d a page", path, len(p.Anchors), anchorsPerPage)
		}
		for _, c := range p.Row.Cells {
			if strings.HasPrefix(c.Column, webtable.FamilyAnchor+":") {
				t.Fatalf("%s: the row's cells hold an anchor, read whole: %v", path, c)
			}
		}
		for _, a := range p.Anchors {
			if seen[a.Referrer] {
				t.Fatalf("anchor from %s listed twice", a.Referrer)
			}
			seen[a.Referrer] = true
		}
		if p.Next == "" {
			break
		}
		if pages == 0 {
			if _, html := get(t, srv, path, false); !strings.Contains(html, "anchors="+p.Next) {
				t.Errorf("the HTML page view offers no link to the next anchors (anchors=%s)", p.Next)
			}
		}
		path = "/page?row=com.cnn.www/&anchors=" + url.QueryEscape(p.Next)
	}
	if len(seen) < n {
		t.Errorf("%d distinct anchors listed over the pages, want at least %d", len(seen), n)
	}
}
