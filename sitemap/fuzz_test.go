package sitemap

import (
	"bytes"
	"testing"
)

// FuzzParse: Parse never panics, keeps to its limit, and what it read
// writes and reads back the same.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<urlset><url><loc>http://a.test/</loc><lastmod>2026-12-04</lastmod><changefreq>daily</changefreq><priority>0.5</priority></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://a.test/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte(`<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</loc></url><url><loc>x`))
	f.Add([]byte("\x1f\x8b\x08\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, _ := Parse(bytes.NewReader(in), Limits{URLs: 3, Bytes: 4096})
		if len(got.URLs) > 3 {
			t.Fatalf("Parse returned %d entries, limit 3", len(got.URLs))
		}
		if got.Kind == 0 {
			if len(got.URLs) > 0 {
				t.Fatalf("Parse returned entries without a root")
			}
			return
		}
		var b bytes.Buffer
		if err := Write(&b, got.Kind, got.URLs); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(&b, Limits{})
		if err != nil {
			t.Fatalf("Parse(Write(%+v)) error %v\n%s", got.URLs, err, b.Bytes())
		}
		if len(again.URLs) != len(got.URLs) {
			t.Fatalf("round trip: %d entries, want %d", len(again.URLs), len(got.URLs))
		}
		for i, u := range got.URLs {
			v := again.URLs[i]
			if got.Kind == Index {
				u.ChangeFreq, u.Priority = "", -1
			}
			if v.Loc != u.Loc || !v.LastMod.Equal(u.LastMod) || v.ChangeFreq != u.ChangeFreq || v.Priority != u.Priority {
				t.Fatalf("round trip entry %d = %+v, want %+v", i, v, u)
			}
		}
	})
}
