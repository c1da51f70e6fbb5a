package crawler

import (
	"strings"
	"testing"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// TestAdmit: the one admission function answers for each kind of URL.
func TestAdmit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Shards = 16
	var mineHost, otherHost string
	for i := 0; mineHost == "" || otherHost == ""; i++ {
		h := "h" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ".a.test"
		if crawlstore.ShardOf(h, 16) == 0 {
			mineHost = h
		} else {
			otherHost = h
		}
	}
	c, err := New(cfg, crawlertest.NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		url  string
		want admission
	}{
		{"http://" + mineHost + "/page", admitted},
		{"http://" + otherHost + "/page", otherShard},
		{"http://elsewhere.test/page", refusedDomain},
		{"http://" + mineHost + "/a/b/a/b/a/b/a/b", refusedTrap},
		{"http://" + mineHost + "/" + strings.Repeat("x", MaxURLLength), refusedTrap},
	} {
		u, err := parseCanonical(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.admit(u, u.String(), []string{"a.test"}); got != tc.want {
			t.Errorf("admit(%.60s) = %d, want %d", tc.url, got, tc.want)
		}
	}
}
