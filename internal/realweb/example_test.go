package realweb_test

import (
	"fmt"
	"io"
	"slices"

	"github.com/webtable/webtable/internal/realweb"
)

// A web of 2 site hosts of 10 pages: what a crawl must reach, and what it
// cannot.
func ExampleStart() {
	w, err := realweb.Start(realweb.Config{Seed: 1, Hosts: 2, Pages: 10})
	if err != nil {
		panic(err)
	}
	defer w.Close()
	fmt.Println("seeds:", w.Seeds())
	fmt.Println("pages to store:", len(w.Reachable()))
	for o, n := range sorted(w.UnreachableOrigins()) {
		fmt.Printf("unreachable: %s (%s), %d pages\n", o, w.Behaviour(o), n)
	}

	c := w.Client() // through the proxy, trusting the test CA
	resp, err := c.Get("https://secure.real.test/s1.html")
	if err != nil {
		panic(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, "by", resp.Proto)
	_, err = c.Get("https://refused.real.test/x0.html")
	fmt.Println("refused:", err != nil)
	// Output:
	// seeds: [http://www.real.test/]
	// pages to store: 51
	// unreachable: http://reset-http.real.test (reset), 3 pages
	// unreachable: http://robots-down.real.test (robots-reset), 3 pages
	// unreachable: https://refused.real.test (refused), 3 pages
	// unreachable: https://reset.real.test (reset), 3 pages
	// unreachable: https://tls-alert.real.test (tls-alert), 3 pages
	// unreachable: https://tls-untrusted.real.test (tls-untrusted), 3 pages
	// unreachable: https://www.real.test:8444 (closed), 3 pages
	// 200 OK by HTTP/2.0
	// refused: true
}

// sorted iterates over m in key order.
func sorted(m map[string]int) func(func(string, int) bool) {
	return func(yield func(string, int) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}
