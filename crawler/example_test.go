package crawler_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/demoweb"
)

// Crawl the embedded demo web into memory and look at the paper's row.
func Example() {
	os.Unsetenv("HTTP_PROXY") // the demo is reached through its own proxy
	web, err := demoweb.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer web.Close()

	cfg := crawler.DefaultConfig()
	cfg.Proxy = web.ProxyURL() // requests keep their real host names
	cfg.Delay = 0
	store := crawlertest.NewMemStore()
	c, err := crawler.New(cfg, store)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	st, err := c.Run(context.Background(), web.Seeds())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fetched:", st.Fetched, "refused by robots.txt:", st.ErrorsByKind[crawlstore.KindRobots])

	row, _ := store.Row("http://www.cnn.com/")
	fmt.Println("mime:", row.MediaType)
	var refs []string
	for ref := range row.Anchors {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	for _, ref := range refs {
		fmt.Printf("anchor from %s: %q\n", ref, row.Anchors[ref])
	}
	// Output:
	// fetched: 8 refused by robots.txt: 3
	// mime: text/html
	// anchor from http://cnnsi.com/: "CNN"
	// anchor from http://my.look.ca/: "CNN.com"
	// anchor from http://www.cnn.com/about.html: "Back to the front page"
	// anchor from http://www.cnn.com/tech/2026/11/29/chips.html: "CNN home"
	// anchor from http://www.cnn.com/world/: "Home"
	// anchor from http://www.cnn.com/world/2026/11/30/summit.html: "CNN"
}
