package crawlrun

import (
	"context"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

// TestResumes: a run resumes the frontier only when it has no seeds and
// reads no sitemaps, and then says whether anything is queued.
func TestResumes(t *testing.T) {
	ctx := context.Background()
	w, err := stores.Open(ctx, t.TempDir(), stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	plain := crawler.DefaultConfig()
	withSitemap := plain
	withSitemap.Sitemaps = []string{"http://www.cnn.com/sitemap.xml"}
	noSitemaps := withSitemap
	noSitemaps.NoSitemaps = true
	check := func(name string, seeds []string, cfg crawler.Config, wantResumes, wantQueued bool) {
		t.Helper()
		resumes, queued, err := Resumes(ctx, w, seeds, cfg)
		if err != nil || resumes != wantResumes || queued != wantQueued {
			t.Errorf("%s: Resumes = %v, %v, %v; want %v, %v, nil", name, resumes, queued, err, wantResumes, wantQueued)
		}
	}
	check("seeds", []string{"http://www.cnn.com/"}, plain, false, false)
	check("a sitemap", nil, withSitemap, false, false)
	check("nothing queued", nil, plain, true, false)
	check("a sitemap not read", nil, noSitemaps, true, false)
	if _, err := w.Enqueue(ctx, []crawlstore.Entry{{URL: "http://www.cnn.com/", Depth: 0}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	check("an entry queued", nil, plain, true, true)
}
