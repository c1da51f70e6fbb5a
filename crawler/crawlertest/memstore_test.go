package crawlertest_test

import (
	"testing"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

func TestMemStoreContract(t *testing.T) {
	crawlertest.StoreContract(t, func(*testing.T) crawlstore.Store { return crawlertest.NewMemStore() })
}

func TestMemStoreDueKeeperContract(t *testing.T) {
	crawlertest.DueKeeperContract(t, func(*testing.T) crawlertest.DueStore { return crawlertest.NewMemStore() })
}

// TestMemStoreSitemapKeeperContract runs the contract of sitemap
// schedules against MemStore.
func TestMemStoreSitemapKeeperContract(t *testing.T) {
	crawlertest.SitemapKeeperContract(t, func(*testing.T) crawlstore.SitemapKeeper { return crawlertest.NewMemStore() })
}
