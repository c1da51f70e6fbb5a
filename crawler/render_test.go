package crawler

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// fakeRenderer renders without a browser: every page's DOM is one link to
// /built (none of the served links: the crawl must keep those itself),
// after the page's requests (Fetch); /crash fails like a crashed tab.
type fakeRenderer struct {
	mu      sync.Mutex
	renders []string         // the URLs rendered
	fetches map[string]error // each data-fetch URL and what Fetch said
}

func (f *fakeRenderer) Render(ctx context.Context, job RenderJob) (RenderResult, error) {
	f.mu.Lock()
	f.renders = append(f.renders, job.URL)
	f.mu.Unlock()
	if strings.HasSuffix(job.URL, "/crash") {
		return RenderResult{}, errors.New("the page crashed its tab")
	}
	for _, u := range []string{"http://a.test/data.js", "http://a.test/private/x", "http://other.test/x.js"} {
		_, err := job.Fetch(ctx, http.MethodGet, u, http.Header{})
		f.mu.Lock()
		f.fetches[u] = err
		f.mu.Unlock()
	}
	_, err := job.Fetch(ctx, http.MethodPost, "http://a.test/data.js", http.Header{})
	f.mu.Lock()
	f.fetches["POST"] = err
	f.mu.Unlock()
	return RenderResult{DOM: []byte(`<html><body><a href="/built">built</a></body></html>`)}, nil
}

// TestRenderHook crawls with each render mode and a fake renderer: links
// of the rendered DOM join the served ones; a failed render records the
// page failed, kind render; auto renders only the shell; the page's
// requests keep to the crawl's scope, robots.txt and GET.
func TestRenderHook(t *testing.T) {
	shell := `<!doctype html><div id="app"></div><script src="/app.js"></script><a href="/served">s</a>`
	long := page(strings.Repeat("manual text ", 30) + `<script></script><a href="/crash">c</a>`)
	for _, tc := range []struct {
		mode         RenderMode
		wantRenders  []string
		wantFetched  []string
		wantMissing  []string
		crashIsFound bool
	}{
		{RenderNever, nil, []string{"/", "/served", "/text"}, []string{"/built"}, false},
		{RenderAlways, []string{"/", "/built", "/served", "/text", "/crash"}, []string{"/built", "/served", "/text"}, nil, true},
		{RenderAuto, []string{"/"}, []string{"/built", "/served", "/text"}, nil, false},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			w := newVWeb(t)
			w.site("a.test", "User-agent: *\nDisallow: /private/\n", map[string]string{
				"/": shell + `<a href="/text">t</a>`, "/served": page("served"), "/built": page("built"),
				"/text": long, "/crash": page("crash"), "/data.js": "var x;", "/private/x": "secret",
			})
			w.site("other.test", "", map[string]string{"/x.js": "var y;"})
			cfg := w.config()
			fr := &fakeRenderer{fetches: map[string]error{}}
			cfg.Render, cfg.Renderer = tc.mode, fr
			store := crawlertest.NewMemStore()
			crawl(t, cfg, store, "http://a.test/")
			for _, p := range tc.wantFetched {
				if r, ok := store.Row("http://a.test" + p); !ok || r.State != crawlstore.StateDone {
					t.Errorf("--render %s: %s is %+v, want done", tc.mode, p, r)
				}
			}
			for _, p := range tc.wantMissing {
				if _, ok := store.Row("http://a.test" + p); ok {
					t.Errorf("--render %s: %s was found", tc.mode, p)
				}
			}
			var got []string
			for _, u := range fr.renders {
				got = append(got, strings.TrimPrefix(u, "http://a.test"))
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.wantRenders))
			if !slices.Equal(got, want) {
				t.Errorf("--render %s rendered %v, want %v", tc.mode, got, want)
			}
			if tc.crashIsFound {
				if r, _ := store.Row("http://a.test/crash"); r.State != crawlstore.StateFailed || r.ErrKind != crawlstore.KindRender {
					t.Errorf("the page whose render crashed is %s (%s %q), want failed, kind render", r.State, r.ErrKind, r.Err)
				}
			}
			if len(fr.renders) == 0 {
				return
			}
			if err := fr.fetches["http://a.test/data.js"]; err != nil {
				t.Errorf("the page's own script: %v, want fetched", err)
			}
			for _, k := range []string{"http://a.test/private/x", "http://other.test/x.js", "POST"} {
				if err := fr.fetches[k]; !errors.Is(err, ErrBlocked) {
					t.Errorf("the page's request %s: %v, want ErrBlocked", k, err)
				}
			}
			if n := len(w.paths("other.test")); n != 0 || slices.Contains(w.paths("a.test"), "/private/x") {
				t.Errorf("requests that must be blocked reached a server: other.test %d, a.test %v", n, w.paths("a.test"))
			}
		})
	}
}
