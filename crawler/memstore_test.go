package crawler_test

import (
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
)

func TestMemStoreContract(t *testing.T) {
	crawlertest.StoreContract(t, func(*testing.T) crawler.Store { return crawler.NewMemStore() })
}
