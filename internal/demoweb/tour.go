package demoweb

import (
	"fmt"
	"time"
)

// Passes is how many times crawl --demo crawls the sample web: the home
// page of www.cnn.com changes between passes (see Server.SetPass), so the
// store ends with that many versions of its contents:html.
const Passes = 3

// Delay is the per-host delay of crawl --demo unless --delay is given: the
// sample web is local, so there is no one to be polite to, but keeping a
// delay shows the politeness at work.
const Delay = 50 * time.Millisecond

// Tour is what crawl --demo prints once it has crawled the sample web into
// the store db: the query commands that show what it stored (a row, its
// versions, a domain's keys, a page's HTML, the table's figures).
func Tour(db string) string {
	return fmt.Sprintf(`
The demo crawl is in %[1]s. Try:

  go run ./cmd/query --db %[1]s get http://www.cnn.com/
  go run ./cmd/query --db %[1]s versions http://www.cnn.com/
  go run ./cmd/query --db %[1]s scan --domain cnn.com --keys-only
  go run ./cmd/query --db %[1]s get http://www.cnn.com/ --column contents:html --raw
  go run ./cmd/query --db %[1]s stats
`, db)
}
