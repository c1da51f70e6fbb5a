package crawler_test

import (
	"context"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/demoweb"
)

// TestDemo crawls the embedded demo web in 3 passes, as `crawl --demo`
// does, and checks the BigTable paper's row com.cnn.www/.
func TestDemo(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		t.Setenv(k, "")
	}
	web, err := demoweb.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	store := crawlertest.NewMemStore()
	for pass := 1; pass <= 3; pass++ {
		web.SetPass(pass)
		cfg := crawler.DefaultConfig()
		cfg.Proxy = web.ProxyURL()
		cfg.Delay = 0
		cfg.Recrawl = pass > 1
		c, err := crawler.New(cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Run(context.Background(), web.Seeds())
		c.Close()
		if err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		wantNew := int64(1) // only the front page changes
		if pass == 1 {
			wantNew = st.Fetched
		}
		if st.NewVersions != wantNew || st.Fetched < 8 {
			t.Errorf("pass %d: stats %+v, want %d new versions of >= 8 pages", pass, st, wantNew)
		}
	}
	row, ok := store.Row("http://www.cnn.com/")
	if !ok {
		t.Fatal("no row com.cnn.www/")
	}
	if got := row.Anchors["http://cnnsi.com/"]; got != "CNN" {
		t.Errorf("anchor from cnnsi.com = %q, want CNN", got)
	}
	if got := row.Anchors["http://my.look.ca/"]; got != "CNN.com" {
		t.Errorf("anchor from my.look.ca = %q, want CNN.com", got)
	}
	if row.MediaType != "text/html" || len(row.Versions) != 3 || row.State != crawlstore.StateDone {
		t.Errorf("com.cnn.www/: mime %q, %d versions, state %v; want text/html, 3, done", row.MediaType, len(row.Versions), row.State)
	}
	if p, _ := store.Row("http://www.cnn.com/private/drafts.html"); p.State != crawlstore.StateFailed || len(p.Versions) != 0 {
		t.Errorf("robots-disallowed page: %+v, want failed without content", p)
	}
	if o, _ := store.Row("http://www.example.org/partners"); o.State != crawlstore.StateNone || o.Anchors["http://www.cnn.com/"] != "Our partners" {
		t.Errorf("offsite nofollow link: %+v, want an anchor only", o)
	}
}
