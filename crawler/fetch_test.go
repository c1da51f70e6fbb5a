package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

func TestRedirects(t *testing.T) {
	w := newVWeb(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprint(rw, "User-agent: *\nDisallow: /private\n")
	})
	mux.HandleFunc("/old", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "/new", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/new", func(rw http.ResponseWriter, r *http.Request) { fmt.Fprint(rw, page("new")) })
	mux.HandleFunc("/same", func(rw http.ResponseWriter, r *http.Request) {
		if r.Host == "a.test" { // the same row key with a trailing dot: not a redirect
			http.Redirect(rw, r, "http://a.test./same", http.StatusFound)
			return
		}
		fmt.Fprint(rw, page("same"))
	})
	mux.HandleFunc("/loop/", func(rw http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/loop/"), "%d", &n)
		http.Redirect(rw, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/ten/", func(rw http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/ten/"), "%d", &n)
		if n == 10 {
			fmt.Fprint(rw, page("after ten"))
			return
		}
		http.Redirect(rw, r, fmt.Sprintf("/ten/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/ftp", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "ftp://a.test/file", http.StatusFound)
	})
	mux.HandleFunc("/file", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/away", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "http://elsewhere.test/", http.StatusFound)
	})
	mux.HandleFunc("/priv", func(rw http.ResponseWriter, r *http.Request) { http.Redirect(rw, r, "/private/1", http.StatusFound) })
	w.handle("a.test", mux)
	w.handle("a.test.", mux)
	w.site("elsewhere.test", "", map[string]string{"/": page("elsewhere")})

	tests := []struct {
		url      string
		state    crawlstore.State
		redirect string // Redirect in the source row
		kind     crawlstore.ErrorKind
		content  string // row holding the content, "" for none
	}{
		{"http://a.test/old", crawlstore.StateDone, "http://a.test/new", "", "http://a.test/new"},
		{"http://a.test/same", crawlstore.StateDone, "", "", "http://a.test/same"},
		{"http://a.test/ten/0", crawlstore.StateDone, "http://a.test/ten/10", "", "http://a.test/ten/10"},
		{"http://a.test/loop/0", crawlstore.StateFailed, "", crawlstore.KindRedirect, ""},
		{"http://a.test/ftp", crawlstore.StateFailed, "", crawlstore.KindRedirect, ""},
		{"http://a.test/file", crawlstore.StateFailed, "", crawlstore.KindRedirect, ""},
		{"http://a.test/away", crawlstore.StateFailed, "", crawlstore.KindRedirect, ""},
		{"http://a.test/priv", crawlstore.StateFailed, "", crawlstore.KindRedirect, ""},
	}
	for _, tc := range tests {
		t.Run(strings.TrimPrefix(tc.url, "http://a.test/"), func(t *testing.T) {
			store := crawlertest.NewMemStore()
			cfg := w.config()
			cfg.Depth = 0
			st := crawl(t, cfg, store, tc.url)
			row, _ := store.Row(tc.url)
			if row.State != tc.state || row.Redirect != tc.redirect {
				t.Errorf("source row = state %v redirect %q err %q, want %v %q", row.State, row.Redirect, row.Err, tc.state, tc.redirect)
			}
			if tc.kind != "" && st.ErrorsByKind[tc.kind] != 1 {
				t.Errorf("errors by kind = %v, want one %s", st.ErrorsByKind, tc.kind)
			}
			if tc.content != "" {
				c, _ := store.Row(tc.content)
				if len(c.Versions) != 1 || c.State != crawlstore.StateDone {
					t.Errorf("content row %s = %d versions, state %v; want 1 version, done", tc.content, len(c.Versions), c.State)
				}
				if tc.content != tc.url && len(row.Versions) != 0 {
					t.Errorf("source row holds %d versions, want none", len(row.Versions))
				}
			}
		})
	}
	t.Run("same key keeps the final URL", func(t *testing.T) {
		store := crawlertest.NewMemStore()
		cfg := w.config()
		cfg.Depth = 0
		crawl(t, cfg, store, "http://a.test/same")
		row, _ := store.Row("http://a.test/same")
		if row.Fetch.URL != "http://a.test/same" || row.Redirect != "" {
			t.Errorf("row = fetch url %q redirect %q", row.Fetch.URL, row.Redirect)
		}
	})
	t.Run("target met in the run is not fetched twice", func(t *testing.T) {
		before := len(w.hitsOf("a.test"))
		mux.HandleFunc("/both", func(rw http.ResponseWriter, r *http.Request) {
			fmt.Fprint(rw, page(`<a href="/old">old</a> <a href="/new">new</a>`))
		})
		store := crawlertest.NewMemStore()
		st := crawl(t, w.config(), store, "http://a.test/both")
		n := 0
		for _, h := range w.hitsOf("a.test")[before:] {
			if h.Path == "/new" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("/new fetched %d times, want 1", n)
		}
		// NB: which worker gets /new first is a race: the one holding
		// /new's entry (then /old's redirect is not followed and /old
		// records the 301) or the one following /old's redirect (then
		// /old records the final 200, and /new's entry is skipped).
		old, _ := store.Row("http://a.test/old")
		if old.State != crawlstore.StateDone || old.Redirect != "http://a.test/new" || (old.Fetch.Status != http.StatusMovedPermanently && old.Fetch.Status != http.StatusOK) || len(old.Versions) != 0 {
			t.Errorf("/old = state %v redirect %q status %d, want done, redirect to /new, 301 (or 200 when it followed)", old.State, old.Redirect, old.Fetch.Status)
		}
		if nw, _ := store.Row("http://a.test/new"); len(nw.Versions) != 1 {
			t.Errorf("/new has %d versions, want 1", len(nw.Versions))
		}
		if st.Redirects != 1 {
			t.Errorf("Redirects = %d, want 1", st.Redirects)
		}
	})
	// The loop stops after MaxRedirects hops: 1 request + 10 redirects followed.
	n := 0
	for _, h := range w.hitsOf("a.test") {
		if strings.HasPrefix(h.Path, "/loop/") {
			n++
		}
	}
	if n != MaxRedirects+1 {
		t.Errorf("redirect loop made %d requests, want %d", n, MaxRedirects+1)
	}
}

func TestLinks(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", map[string]string{
		"/dir/page.html": page(`
			<base href="http://a.test/base/">
			<a href="rel.html">Relative
			   to   base</a>
			<a href="../up.html"></a>
			<a href="/abs.html"><img src="x.png" alt=" Image  alt "></a>
			<a href="rel.html">second text ignored</a>
			<a href="dup.html"> </a><a href="dup.html">Dup text</a>
			<a href="nf.html" rel="nofollow">No follow</a>
			<a href="nf2.html" rel="NoFollow noopener">nf2</a>
			<a href="nf2.html">nf2 again</a>
			<a href="mailto:x@a.test">mail</a>
			<a href="javascript:void(0)">js</a>
			<a href="ftp://a.test/f">ftp</a>
			<a href="#top">fragment: resolved against the base</a>
			<a href="http://a.test/dir/page.html#x">self too</a>
			<a href="http://B.TEST:80/x?q=1#frag">other host</a>
			<area href="area.html" alt="Area">
			<a href="  /spaced.html  ">spaced</a>
			<a>no href</a>
			<a href="/script.html">Text<script>var x = "<b>";</script> more</a>
		`),
	})
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Depth = 0
	var got []crawlstore.Link
	cfg.Progress = nil
	crawl(t, cfg, &spyStore{Store: store, pages: func(p *crawlstore.Page) {
		if p.URL == "http://a.test/dir/page.html" {
			got = p.Links
		}
	}}, "http://a.test/dir/page.html")
	want := []crawlstore.Link{
		{URL: "http://a.test/base/rel.html", Text: "Relative to base"},
		{URL: "http://a.test/up.html", Text: ""},
		{URL: "http://a.test/abs.html", Text: "Image alt"},
		{URL: "http://a.test/base/dup.html", Text: "Dup text"},
		{URL: "http://a.test/base/nf.html", Text: "No follow", NoFollow: true},
		{URL: "http://a.test/base/nf2.html", Text: "nf2"},
		{URL: "http://a.test/base/", Text: "fragment: resolved against the base"},
		{URL: "http://b.test/x?q=1", Text: "other host"},
		{URL: "http://a.test/base/area.html", Text: ""},
		{URL: "http://a.test/spaced.html", Text: "spaced"},
		{URL: "http://a.test/script.html", Text: "Text more"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

func TestMetaNoFollow(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", map[string]string{
		"/":  page(`<meta name="ROBOTS" content="noindex, NOFOLLOW"><a href="/x">x</a>`),
		"/x": page("x"),
	})
	store := crawlertest.NewMemStore()
	crawl(t, w.config(), store, "http://a.test/")
	if got := w.paths("a.test"); len(got) != 1 {
		t.Errorf("paths = %v, want only / (meta robots nofollow)", got)
	}
	if row, _ := store.Row("http://a.test/x"); row.Anchors["http://a.test/"] != "x" {
		t.Errorf("anchor of a nofollow link not recorded: %+v", row)
	}
}

type spyStore struct {
	crawlstore.Store
	pages func(*crawlstore.Page)
}

func (s *spyStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	if s.pages != nil {
		s.pages(p)
	}
	return s.Store.SavePage(ctx, p)
}

func TestNonHTML(t *testing.T) {
	pdf := []byte("%PDF-1.4 fake")
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/doc.pdf">pdf</a> <a href="/untyped">u</a>`))
		case "/doc.pdf":
			rw.Header().Set("Content-Type", "application/pdf")
			rw.Write(pdf)
		case "/untyped":
			rw.Header()["Content-Type"] = nil // sniffed as HTML
			fmt.Fprint(rw, `<html><body><a href="/doc.pdf">again</a></body></html>`)
		default:
			http.NotFound(rw, r)
		}
	}))
	for _, storeAll := range []bool{false, true} {
		t.Run(fmt.Sprint("StoreAll=", storeAll), func(t *testing.T) {
			store := crawlertest.NewMemStore()
			cfg := w.config()
			cfg.StoreAll = storeAll
			crawl(t, cfg, store, "http://a.test/")
			row, _ := store.Row("http://a.test/doc.pdf")
			if row.MediaType != "application/pdf" || row.State != crawlstore.StateDone || row.Fetch.Status != 200 {
				t.Errorf("pdf row = %+v, want media type, done, 200", row)
			}
			wantVersions := 0
			if storeAll {
				wantVersions = 1
			}
			if len(row.Versions) != wantVersions {
				t.Errorf("pdf row has %d versions, want %d", len(row.Versions), wantVersions)
			} else if storeAll && !bytes.Equal(row.Versions[0].Body, pdf) {
				t.Errorf("pdf body = %q, want %q", row.Versions[0].Body, pdf)
			}
			u, _ := store.Row("http://a.test/untyped")
			if len(u.Versions) != 1 || u.Anchors["http://a.test/"] != "u" {
				t.Errorf("untyped HTML row = %+v, want a version", u)
			}
		})
	}
}

func TestRawBytesAndCharsets(t *testing.T) {
	tests := []struct {
		name, ctype string
		body        []byte
		text        string // anchor text expected, UTF-8
		charset     string
	}{
		{"latin1 header", "text/html; charset=ISO-8859-1", []byte("<a href=\"/x\">Caf\xe9 cr\xe8me</a>"), "Café crème", "iso-8859-1"},
		{"latin1 meta", "text/html", []byte("<meta charset=\"iso-8859-1\"><a href=\"/x\">Caf\xe9</a>"), "Café", "windows-1252"},
		{"shift_jis", "text/html; charset=Shift_JIS", []byte("<a href=\"/x\">\x93\xfa\x96\x7b</a>"), "日本", "shift_jis"},
		{"gbk", "text/html; charset=gbk", []byte("<a href=\"/x\">\xd6\xd0\xce\xc4</a>"), "中文", "gbk"},
		{"shift_jis meta", "text/html", []byte("<meta charset=\"Shift_JIS\"><a href=\"/x\">\x93\xfa\x96\x7b</a>"), "日本", "shift_jis"},
		{"gbk meta", "text/html", []byte("<meta charset=gbk><a href=\"/x\">\xd6\xd0\xce\xc4</a>"), "中文", "gbk"},
		{"gbk meta http-equiv", "text/html", []byte("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=gbk\"><a href=\"/x\">\xd6\xd0\xce\xc4</a>"), "中文", "gbk"},
		{"header wins over meta", "text/html; charset=gbk", []byte("<meta charset=\"iso-8859-1\"><a href=\"/x\">\xd6\xd0\xce\xc4</a>"), "中文", "gbk"},
		{"utf-8", "text/html; charset=utf-8", []byte("<a href=\"/x\">naïve</a>"), "naïve", "utf-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newVWeb(t)
			w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/" {
					http.NotFound(rw, r)
					return
				}
				rw.Header().Set("Content-Type", tc.ctype)
				rw.Write(tc.body)
			}))
			store := crawlertest.NewMemStore()
			cfg := w.config()
			cfg.Depth = 0
			var charset string
			crawl(t, cfg, &spyStore{Store: store, pages: func(p *crawlstore.Page) { charset = p.Charset }}, "http://a.test/")
			row, _ := store.Row("http://a.test/")
			if len(row.Versions) != 1 || !bytes.Equal(row.Versions[0].Body, tc.body) {
				t.Fatalf("stored versions = %+v, want one with the raw bytes %q", row.Versions, tc.body)
			}
			x, _ := store.Row("http://a.test/x")
			if got := x.Anchors["http://a.test/"]; got != tc.text {
				t.Errorf("anchor text = %q, want %q", got, tc.text)
			}
			if charset != tc.charset {
				t.Errorf("charset = %q, want %q", charset, tc.charset)
			}
		})
	}
}

func TestNotModifiedAndRecrawl(t *testing.T) {
	w := newVWeb(t)
	version := "v1"
	var conditional []string
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		etag := `"` + version + `"`
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			conditional = append(conditional, inm+"|"+r.Header.Get("If-Modified-Since"))
			if inm == etag {
				rw.WriteHeader(http.StatusNotModified)
				return
			}
		}
		rw.Header().Set("ETag", etag)
		rw.Header().Set("Last-Modified", "Mon, 30 Nov 2026 06:00:00 GMT")
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprint(rw, page(version))
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	st := crawl(t, cfg, store, "http://a.test/")
	if st.NewVersions != 1 {
		t.Fatalf("first crawl: NewVersions = %d, want 1", st.NewVersions)
	}
	// Without Recrawl a done seed is not fetched again.
	crawl(t, cfg, store, "http://a.test/")
	if got := len(w.paths("a.test")); got != 1 {
		t.Errorf("second crawl without recrawl fetched: %d requests in all, want 1", got)
	}
	cfg.Recrawl = true
	st = crawl(t, cfg, store, "http://a.test/")
	if st.Fetched != 1 || st.Unchanged != 1 || st.NewVersions != 0 || st.Errors != 0 {
		t.Errorf("recrawl with 304: stats %+v, want 1 fetched unchanged", st)
	}
	row, _ := store.Row("http://a.test/")
	if row.Fetch.Status != 304 || len(row.Versions) != 1 || row.State != crawlstore.StateDone {
		t.Errorf("after 304: status %d, %d versions, state %v; want 304, 1, done", row.Fetch.Status, len(row.Versions), row.State)
	}
	version = "v2"
	st = crawl(t, cfg, store, "http://a.test/")
	if st.NewVersions != 1 {
		t.Errorf("recrawl after a change: NewVersions = %d, want 1", st.NewVersions)
	}
	row, _ = store.Row("http://a.test/")
	if len(row.Versions) != 2 || !strings.Contains(string(row.Versions[0].Body), "v2") {
		t.Errorf("versions after change = %d (newest %q), want 2 with v2 first", len(row.Versions), row.Versions[0].Body)
	}
	want := []string{`"v1"|Mon, 30 Nov 2026 06:00:00 GMT`, `"v1"|Mon, 30 Nov 2026 06:00:00 GMT`}
	if diff := cmp.Diff(want, conditional); diff != "" {
		t.Errorf("conditional request headers (-want +got):\n%s", diff)
	}
}

var zeroMember = func() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return b.Bytes()
}()

func TestTruncation(t *testing.T) {
	big := page(`<a href="/next">next</a>` + strings.Repeat("x", 500))
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, big)
		case "/next":
			fmt.Fprint(rw, page("small"))
		case "/bomb", "/xbomb":
			// /bomb: gzip decoded by net/http, read under our bound;
			// /xbomb: an encoding net/http leaves alone, decoded by us.
			rw.Header().Set("Content-Type", "text/html")
			rw.Header().Set("Content-Encoding", map[string]string{"/bomb": "gzip", "/xbomb": "x-gzip"}[r.URL.Path])
			zw := gzip.NewWriter(rw)
			zw.Write([]byte(page(`<a href="/next">n</a>`)))
			zw.Close()
			for range 64 { // 64 more gzip members of 1 MiB of zeros each
				rw.Write(zeroMember)
			}
		default:
			http.NotFound(rw, r)
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.MaxBody = 200
	cfg.IgnoreRobots = true
	crawl(t, cfg, store, "http://a.test/", "http://a.test/bomb", "http://a.test/xbomb")
	for _, u := range []string{"http://a.test/", "http://a.test/bomb", "http://a.test/xbomb"} {
		row, _ := store.Row(u)
		if !row.Truncated || len(row.Versions) != 1 || len(row.Versions[0].Body) != 200 {
			t.Errorf("%s: truncated %v, %d versions; want truncated with a 200-byte body", u, row.Truncated, len(row.Versions))
		} else if !bytes.HasPrefix(row.Versions[0].Body, []byte("<!doctype html>")) {
			t.Errorf("%s: body %.30q, want the decoded page", u, row.Versions[0].Body)
		}
	}
	if row, _ := store.Row("http://a.test/next"); row.State != crawlstore.StateDone || row.Truncated {
		t.Errorf("link on a truncated page: %+v, want followed and not truncated", row)
	}
}

func TestTraps(t *testing.T) {
	var links strings.Builder
	links.WriteString(`<a href="/` + strings.Repeat("a", MaxURLLength) + `">long</a>`)
	links.WriteString(`<a href="/a/b/a/b/a/b/a/b">repeat</a>`)
	links.WriteString(`<a href="/a/b/a/b/a/b">three times is fine</a>`)
	for i := range 1500 {
		fmt.Fprintf(&links, `<a href="/l%d">l</a>`, i)
	}
	w := newVWeb(t)
	w.site("a.test", "", map[string]string{"/": page(links.String())})
	var got []crawlstore.Link
	cfg := w.config()
	cfg.Depth = 0
	cfg.MaxLinks = 1000
	found := 0
	st := crawl(t, cfg, &spyStore{Store: crawlertest.NewMemStore(), pages: func(p *crawlstore.Page) { got, found = p.Links, p.LinksFound }}, "http://a.test/")
	if found != 1500+1 {
		t.Errorf("links found = %d, want %d (every distinct target but the traps, kept or not)", found, 1500+1)
	}
	if len(got) != cfg.MaxLinks {
		t.Errorf("links kept = %d, want %d", len(got), cfg.MaxLinks)
	}
	for _, l := range got {
		if strings.Contains(l.URL, "aaaa") || strings.HasSuffix(l.URL, "/a/b/a/b/a/b/a/b") {
			t.Errorf("trap kept: %.60s", l.URL)
		}
	}
	if got[0].URL != "http://a.test/a/b/a/b/a/b" {
		t.Errorf("first link = %q, want the 3-repeat path", got[0].URL)
	}
	if st.Traps != 2 {
		t.Errorf("Traps = %d, want 2", st.Traps)
	}
}

func TestIsTrap(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/", false},
		{"/a/a/a", false},
		{"/a/a/a/a", true},
		{"/cal/2026/cal/2026/cal/2026/cal", true},
		{"/x/y/x/y/x/y", false},
		{"/" + strings.Repeat("z", MaxURLLength), true},
	}
	for _, tc := range tests {
		u, _ := parseCanonical("http://a.test" + tc.path)
		if got := isTrap(u, u.String()); got != tc.want {
			t.Errorf("isTrap(%.40q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestHTTPErrors(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/404">a</a><a href="/500">b</a><a href="http://down.test/">c</a>`))
		case "/500":
			http.Error(rw, "boom", 500)
		default:
			http.NotFound(rw, r)
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.AllowDomains = []string{"a.test", "down.test"}
	cfg.IgnoreRobots = true
	st := crawl(t, cfg, store, "http://a.test/")
	if st.Fetched != 1 || st.Errors != 3 || st.ErrorsByKind[crawlstore.KindHTTP] != 3 || st.Retries != 2*MaxRetries {
		t.Errorf("stats = %+v, want 1 fetched, 3 http errors (the proxy answers 502 for down.test), %d retries", st, 2*MaxRetries)
	}
	if n := len(w.paths("a.test")); n != 3+MaxRetries {
		t.Errorf("requests to a.test = %d, want %d (404 is not retried, 500 is)", n, 3+MaxRetries)
	}
	for _, u := range []string{"http://a.test/404", "http://a.test/500"} {
		row, _ := store.Row(u)
		if row.State != crawlstore.StateFailed || len(row.Versions) != 0 {
			t.Errorf("%s = %v with %d versions, want failed and no content", u, row.State, len(row.Versions))
		}
	}
}

func TestTimeouts(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow-body":
			rw.Header().Set("Content-Type", "text/html")
			rw.WriteHeader(200)
			fmt.Fprint(rw, "<html><body>start")
			rw.(http.Flusher).Flush()
			<-r.Context().Done() // never finishes: the client must give up
		case "/slow-headers":
			<-r.Context().Done()
		default:
			http.NotFound(rw, r)
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Timeout = 300 * time.Millisecond
	cfg.IgnoreRobots = true
	st := crawl(t, cfg, store, "http://a.test/slow-body", "http://a.test/slow-headers")
	if st.ErrorsByKind[crawlstore.KindTimeout] != 2 {
		t.Errorf("errors by kind = %v, want 2 timeouts", st.ErrorsByKind)
	}
	for _, u := range []string{"http://a.test/slow-body", "http://a.test/slow-headers"} {
		if row, _ := store.Row(u); row.State != crawlstore.StateFailed || row.Err == "" {
			t.Errorf("%s = %v %q, want failed with an error", u, row.State, row.Err)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	w := newVWeb(t)
	var calls int
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		calls++
		if calls == 1 {
			rw.Header().Set("Retry-After", "1")
			http.Error(rw, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(rw, page("ok"))
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	st := crawl(t, cfg, store, "http://a.test/")
	if st.Fetched != 1 || st.Retries != 1 || st.Errors != 0 {
		t.Errorf("stats = %+v, want fetched after one retry", st)
	}
	checkGaps(t, w, "a.test", time.Second)
	if row, _ := store.Row("http://a.test/"); row.State != crawlstore.StateDone || len(row.Versions) != 1 {
		t.Errorf("row = %v with %d versions, want done with the page", row.State, len(row.Versions))
	}
}

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"5", 5 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"3600", time.Hour, true},
		{"999999999999", 24 * time.Hour, true},
		{"Mon, 30 Nov 2026 06:00:10 GMT", 10 * time.Second, true},
		{"Mon, 30 Nov 2026 05:00:00 GMT", 0, true},
		{"Mon, 30 Nov 2099 05:00:00 GMT", 24 * time.Hour, true},
		{"soon", 0, false},
	}
	for _, tc := range tests {
		got, ok := retryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
