package urlkey_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/webtable/webtable/urlkey"
)

func ExampleKey() {
	for _, u := range []string{
		"http://www.cnn.com/",
		"https://maps.google.com/index.html",
		"http://cnn.com:8080/a?b=1",
		"http://www.bücher.de/café",
		"http://127.0.0.1:8080/x",
	} {
		k, err := urlkey.Key(u)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(k)
	}
	// Output:
	// com.cnn.www/
	// com.google.maps/index.html
	// com.cnn:8080/a?b=1
	// de.xn--bcher-kva.www/caf%C3%A9
	// 127.0.0.1:8080/x
}

func ExampleKey_error() {
	_, err := urlkey.Key("mailto:someone@cnn.com")
	fmt.Println(err)
	fmt.Println(errors.Is(err, urlkey.ErrScheme))
	// Output:
	// urlkey: key "mailto:someone@cnn.com": scheme is not http or https: "mailto"
	// true
}

// Sorting keys puts a domain's pages together, as in the WebTable of the
// Bigtable paper.
func ExampleKey_sorted() {
	var keys []string
	for _, u := range []string{
		"http://www.cnn.com/",
		"http://cnnsi.com/",
		"http://my.look.ca/",
		"http://edition.www.cnn.com/",
		"http://www.cnn.com/world/",
		"http://cnn.com/",
	} {
		k, _ := urlkey.Key(u)
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println(strings.Join(keys, "\n"))
	// Output:
	// ca.look.my/
	// com.cnn.www.edition/
	// com.cnn.www/
	// com.cnn.www/world/
	// com.cnn/
	// com.cnnsi/
}

func ExampleCanonical() {
	u, _ := urlkey.Canonical("HTTP://user@WWW.CNN.COM:80/a/./b/../c?q=go#top")
	fmt.Println(u)
	fmt.Println(urlkey.KeyOf(u))
	// Output:
	// http://www.cnn.com/a/c?q=go
	// com.cnn.www/a/c?q=go
}

func ExampleURL() {
	u, _ := urlkey.URL("com.cnn.www/index.html", "https")
	fmt.Println(u)
	// Output:
	// https://www.cnn.com/index.html
}

func ExampleReferrer() {
	// The anchor: column of com.cnn.www/ is qualified by the referring page.
	for _, raw := range []string{"http://cnnsi.com/", "http://www.example.org/blog/post.html#c"} {
		u, _ := urlkey.Canonical(raw)
		fmt.Println("anchor:" + urlkey.Referrer(u))
	}
	// Output:
	// anchor:cnnsi.com
	// anchor:www.example.org/blog/post.html
}

func ExampleHost() {
	h, _ := urlkey.Host("www.cnn.com")
	fmt.Println(h)
	// Output:
	// com.cnn.www
}

func ExampleDomainRanges() {
	for _, r := range urlkey.DomainRanges("cnn.com") {
		fmt.Println(r)
	}
	rs := urlkey.DomainRanges("cnn.com")
	for _, k := range []string{"com.cnn.www/", "com.cnn:8080/", "com.cnnsi/"} {
		fmt.Println(k, rs[0].Contains(k) || rs[1].Contains(k))
	}
	// Output:
	// ["com.cnn.","com.cnn0")
	// ["com.cnn:","com.cnn;")
	// com.cnn.www/ true
	// com.cnn:8080/ true
	// com.cnnsi/ false
}

func ExampleHostRanges() {
	for _, r := range urlkey.HostRanges("www.cnn.com") {
		fmt.Println(r)
	}
	// Output:
	// ["com.cnn.www/","com.cnn.www0")
	// ["com.cnn.www:","com.cnn.www;")
}

func ExamplePrefixRange() {
	r, _ := urlkey.PrefixRange("http://www.cnn.com/2024/")
	fmt.Println(r)
	// Output:
	// ["com.cnn.www/2024/","com.cnn.www/20240")
}
