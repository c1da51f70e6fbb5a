package webtable_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	emulatorpkg "github.com/webtable/webtable/internal/emulator"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

func openTestTable(t *testing.T) *webtable.WebTable {
	t.Helper()
	w, err := stores.Open(context.Background(), filepath.Join(t.TempDir(), "db"), stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestStoreContract runs the crawler's Store contract against the WebTable
// (CrawlStore), the same suite the in-memory store passes.
func TestStoreContract(t *testing.T) {
	crawlertest.StoreContract(t, func(t *testing.T) crawlstore.Store { return openTestTable(t).CrawlStore() })
}

// TestDueKeeperContract runs the contract of due entries against the
// WebTable in the embedded store.
func TestDueKeeperContract(t *testing.T) {
	crawlertest.DueKeeperContract(t, func(t *testing.T) crawlertest.DueStore { return openTestTable(t).CrawlStore() })
}

// TestSitemapKeeperContract runs the contract of sitemap schedules
// against the WebTable in the embedded store.
func TestSitemapKeeperContract(t *testing.T) {
	crawlertest.SitemapKeeperContract(t, func(t *testing.T) crawlstore.SitemapKeeper { return openTestTable(t).CrawlStore() })
}

// TestSavePageWritesAnchorsAndRedirects checks what the contract cannot
// see through the interface: anchors in the targets' rows, and a redirect
// between keys putting the content in the target's row and the redirect in
// the source's.
func TestSavePageWritesAnchorsAndRedirects(t *testing.T) {
	ctx := context.Background()
	w := openTestTable(t)
	s := w.CrawlStore()
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	body := []byte("<a href=http://www.cnn.com/>CNN</a>")
	p := &crawlstore.Page{
		URL: "http://cnnsi.com/", FinalURL: "http://www.cnnsi.com/", Redirected: true,
		Time: at, Status: 200, MediaType: "text/html", Body: body, SHA256: crawlstore.SHA256Hex(body), Length: int64(len(body)),
		Links:      []crawlstore.Link{{URL: "http://www.cnn.com/", Text: "CNN"}, {URL: "http://www.cnn.com/nofollow", Text: "x", NoFollow: true}},
		Discovered: []crawlstore.Entry{{URL: "http://www.cnn.com/", Depth: 1}},
	}
	if _, err := s.Enqueue(ctx, []crawlstore.Entry{{URL: p.URL}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	res, err := s.SavePage(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NewVersion {
		t.Errorf("SavePage NewVersion = false, want true for a first fetch")
	}
	anchors, err := w.Get(ctx, "com.cnn.www/", webtable.Query{Family: webtable.FamilyAnchor})
	if err != nil {
		t.Fatal(err)
	}
	// The referrer is the page the content came from: the redirect target.
	if len(anchors.Cells) != 1 || anchors.Cells[0].Qualifier != "www.cnnsi.com" || string(anchors.Cells[0].Value) != "CNN" {
		t.Errorf("anchors of com.cnn.www/ = %+v, want anchor:www.cnnsi.com = CNN", anchors.Cells)
	}
	nofollow, _ := w.Get(ctx, "com.cnn.www/nofollow", webtable.Query{Family: webtable.FamilyAnchor})
	if len(nofollow.Cells) != 1 {
		t.Errorf("a nofollow link's anchor is still stored: got %+v", nofollow.Cells)
	}
	src, ok, err := w.LastFetch(ctx, "http://cnnsi.com/")
	if err != nil || !ok || src.Redirect != "http://www.cnnsi.com/" || src.State != crawlstore.StateDone {
		t.Errorf("source row fetch = %+v (ok %v, err %v), want redirect to http://www.cnnsi.com/ and done", src, ok, err)
	}
	if vs, _ := w.Versions(ctx, "com.cnnsi/"); len(vs) != 0 {
		t.Errorf("source row holds %d content versions, want none", len(vs))
	}
	dst, ok, err := w.LastFetch(ctx, "http://www.cnnsi.com/")
	if err != nil || !ok || dst.URL != "http://www.cnnsi.com/" || dst.State != crawlstore.StateDone {
		t.Errorf("target row fetch = %+v (ok %v, err %v), want the page, done", dst, ok, err)
	}
	if vs, _ := w.Versions(ctx, "com.cnnsi.www/"); len(vs) != 1 {
		t.Errorf("target row holds %d content versions, want 1", len(vs))
	}
}

// TestUnfollowedRedirectIsRecorded: a redirect the crawler did not follow
// (its target is fetched on its own) is the redirect of the row that
// answered, and the target's row is left alone.
func TestUnfollowedRedirectIsRecorded(t *testing.T) {
	ctx := context.Background()
	w := openTestTable(t)
	s := w.CrawlStore()
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	p := &crawlstore.Page{URL: "http://www.cnn.com/old", FinalURL: "http://www.cnn.com/old", Location: "http://www.cnn.com/new", Time: at, Status: 301}
	if _, err := s.SavePage(ctx, p); err != nil {
		t.Fatal(err)
	}
	f, ok, err := w.LastFetch(ctx, "http://www.cnn.com/old")
	if err != nil || !ok || f.Redirect != "http://www.cnn.com/new" || f.Status != 301 {
		t.Errorf("LastFetch(old) = %+v, %v, %v; want status 301 redirecting to /new", f, ok, err)
	}
	if _, ok, _ := w.LastFetch(ctx, "http://www.cnn.com/new"); ok {
		t.Errorf("the redirect target's row was written")
	}
}

// TestStoreContractOnCloudBigtable runs the same contract with the
// WebTable on Cloud Bigtable (Google's emulator).
func TestStoreContractOnCloudBigtable(t *testing.T) {
	emulatorpkg.Start(t)
	n := 0
	crawlertest.StoreContract(t, func(t *testing.T) crawlstore.Store {
		n++
		w, err := stores.Open(context.Background(), fmt.Sprintf("bigtable://p/i/t%d", n), stores.ForCrawl, webtable.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		return w.CrawlStore()
	})
}

// TestSavePageRecordsLinksFoundAndKept: a page with more links than the cap
// records how many it had and how many were kept, so none is dropped
// silently.
func TestSavePageRecordsLinksFoundAndKept(t *testing.T) {
	ctx := context.Background()
	w := openTestTable(t)
	s := w.CrawlStore()
	body := []byte("<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a>")
	p := &crawlstore.Page{
		URL: "http://www.cnn.com/", FinalURL: "http://www.cnn.com/", Time: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC),
		Status: 200, MediaType: "text/html", Body: body, SHA256: crawlstore.SHA256Hex(body), Length: int64(len(body)),
		Links:      []crawlstore.Link{{URL: "http://www.cnn.com/a", Text: "a"}, {URL: "http://www.cnn.com/b", Text: "b"}},
		LinksFound: 3,
	}
	if _, err := s.SavePage(ctx, p); err != nil {
		t.Fatal(err)
	}
	f, ok, err := w.LastFetch(ctx, p.URL)
	if err != nil || !ok {
		t.Fatalf("LastFetch = %v, %v", ok, err)
	}
	if f.Links != 3 || f.LinksKept != 2 {
		t.Errorf("fetch:links = %d, fetch:links_kept = %d; want 3 and 2", f.Links, f.LinksKept)
	}
}
