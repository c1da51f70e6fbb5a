package extract_test

import (
	"fmt"

	"github.com/webtable/webtable/extract"
)

func ExampleExtract() {
	page := []byte(`<a href="http://www.cnn.com/">CNN</a> <a href="/about" rel="nofollow">About <b>us</b></a>`)
	ex := extract.Extract(page, "text/html")
	for _, l := range ex.Links {
		fmt.Printf("%s %q nofollow=%v\n", l.Href, l.Text, l.NoFollow)
	}
	// Output:
	// http://www.cnn.com/ "CNN" nofollow=false
	// /about "About us" nofollow=true
}

func ExampleText() {
	page := []byte(`<html><head><title>CNN</title><script>track()</script></head>
<body><h1>Edition 3</h1><p>Markets   rally after the <b>summit</b> deal</p></body></html>`)
	text, truncated := extract.Text(page, "text/html; charset=utf-8", 1<<20)
	fmt.Print(text)
	fmt.Println(truncated)
	// Output:
	// CNN
	// Edition 3
	// Markets rally after the summit deal
	// false
}
