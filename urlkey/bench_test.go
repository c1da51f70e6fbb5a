package urlkey_test

import (
	"net/url"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// benchURLs are links of the kinds a crawler extracts from pages: mostly
// lower-case ASCII hosts with paths and queries, a few with upper case,
// escapes, ports, dot segments or an IDN host.
var benchURLs = []string{
	"https://www.cnn.com/2024/05/01/world/europe/index.html",
	"https://en.wikipedia.org/wiki/Bigtable",
	"https://www.example.org/blog/post.html?utm_source=feed&utm_medium=rss",
	"http://maps.google.com/maps?q=new+york&hl=en",
	"https://news.ycombinator.com/item?id=40000000",
	"https://github.com/golang/go/issues/47510#issuecomment-1",
	"http://WWW.CNN.COM/Index.html",
	"https://docs.python.org/3/library/urllib.parse.html#url-parsing",
	"http://cnn.com:8080/a/./b/../c?x=%7e",
	"https://www.bücher.de/suche?q=caf%c3%a9",
}

// BenchmarkKey measures Key on realistic URLs. Its baseline,
// BenchmarkURLParse, is net/url.Parse of the same URLs, the least a crawler
// does with every link it finds.
func BenchmarkKey(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := urlkey.Key(benchURLs[i%len(benchURLs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeyASCII is BenchmarkKey without the IDN host, the common case.
func BenchmarkKeyASCII(b *testing.B) {
	urls := benchURLs[:len(benchURLs)-1]
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := urlkey.Key(urls[i%len(urls)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkURLParse is the baseline: net/url.Parse of benchURLs.
func BenchmarkURLParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := url.Parse(benchURLs[i%len(benchURLs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCanonical(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := urlkey.Canonical(benchURLs[i%len(benchURLs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKeyOf(b *testing.B) {
	us := make([]*url.URL, len(benchURLs))
	for i, raw := range benchURLs {
		u, err := urlkey.Canonical(raw)
		if err != nil {
			b.Fatal(err)
		}
		us[i] = u
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		urlkey.KeyOf(us[i%len(us)])
	}
}
