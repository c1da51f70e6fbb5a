package crawler

import "github.com/webtable/webtable/crawlstore"

// entry is a frontier entry as this run holds it: the store's entry and
// what the run learnt about fetching it, which the store never sees.
type entry struct {
	crawlstore.Entry

	tries   int  // fetches retried in this run (429, 5xx)
	swapped bool // tried through the other scheme after gateway errors (otherScheme)
	moved   bool // URL is on the other scheme: its own origin was held back (place)
}
