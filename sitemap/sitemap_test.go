package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	day := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      string
		kind    Kind
		locs    []string
		bad     int
		wantErr error
	}{
		{"urlset", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> http://a.test/x </loc></url><url><loc>http://a.test/y</loc></url></urlset>`, URLSet, []string{"http://a.test/x", "http://a.test/y"}, 0, nil},
		{"index", `<sitemapindex><sitemap><loc>http://a.test/s1.xml.gz</loc><lastmod>2026-12-04</lastmod></sitemap></sitemapindex>`, Index, []string{"http://a.test/s1.xml.gz"}, 0, nil},
		{"prefixed names", `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.test/</sm:loc></sm:url></sm:urlset>`, URLSet, []string{"http://a.test/"}, 0, nil},
		{"extensions skipped", `<urlset><url><loc>http://a.test/</loc><image:image><image:loc>http://a.test/i.png</image:loc></image:image></url></urlset>`, URLSet, []string{"http://a.test/"}, 0, nil},
		{"entry without loc", `<urlset><url><lastmod>2026</lastmod></url><url><loc>http://a.test/</loc></url></urlset>`, URLSet, []string{"http://a.test/"}, 1, nil},
		{"entity in loc", `<urlset><url><loc>http://a.test/?a=1&amp;b=2</loc></url></urlset>`, URLSet, []string{"http://a.test/?a=1&b=2"}, 0, nil},
		{"not xml", "User-agent: *\nDisallow: /\n", 0, nil, 0, ErrNotSitemap},
		{"html", `<html><body>hi</body></html>`, 0, nil, 0, ErrNotSitemap},
		{"empty", ``, 0, nil, 0, ErrNotSitemap},
		{"truncated in entry", `<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.te`, URLSet, []string{"http://a.test/1"}, 0, ErrTruncated},
		{"truncated after entry", `<urlset><url><loc>http://a.test/1</loc></url>`, URLSet, []string{"http://a.test/1"}, 0, ErrTruncated},
		{"bad xml inside", `<urlset><url><loc>http://a.test/1</loc></url><url><loc>x</lo></url></urlset>`, URLSet, []string{"http://a.test/1"}, 0, ErrNotSitemap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(tc.in), Limits{})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Parse(%q) error = %v, want %v", tc.in, err, tc.wantErr)
			}
			if f.Kind != tc.kind || f.Bad != tc.bad {
				t.Errorf("Parse(%q) = kind %v bad %d, want kind %v bad %d", tc.in, f.Kind, f.Bad, tc.kind, tc.bad)
			}
			var locs []string
			for _, u := range f.URLs {
				locs = append(locs, u.Loc)
			}
			if strings.Join(locs, " ") != strings.Join(tc.locs, " ") {
				t.Errorf("Parse(%q) locs = %q, want %q", tc.in, locs, tc.locs)
			}
		})
	}
	f, err := Parse(strings.NewReader(`<sitemapindex><sitemap><loc>http://a.test/s</loc><lastmod>2026-12-04</lastmod></sitemap></sitemapindex>`), Limits{})
	if err != nil || !f.URLs[0].LastMod.Equal(day) {
		t.Errorf("index lastmod = %v (%v), want %v", f.URLs[0].LastMod, err, day)
	}
}

func TestFields(t *testing.T) {
	in := `<urlset><url><loc>http://a.test/</loc><lastmod>2026-12-04T10:30:00+01:00</lastmod><changefreq>Daily</changefreq><priority>0.8</priority></url>` +
		`<url><loc>http://a.test/2</loc><changefreq>sometimes</changefreq><priority>2</priority><lastmod>yesterday</lastmod></url></urlset>`
	f, err := Parse(strings.NewReader(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []URL{
		{Loc: "http://a.test/", LastMod: time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC), ChangeFreq: "daily", Priority: 0.8},
		{Loc: "http://a.test/2", Priority: -1},
	}
	for i, w := range want {
		g := f.URLs[i]
		if g.Loc != w.Loc || !g.LastMod.Equal(w.LastMod) || g.ChangeFreq != w.ChangeFreq || g.Priority != w.Priority {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026":                    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		"2026-12":                 time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"2026-12-04":              time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC),
		"2026-12-04T10:30+02:00":  time.Date(2026, 12, 4, 8, 30, 0, 0, time.UTC),
		"2026-12-04T10:30:05.25Z": time.Date(2026, 12, 4, 10, 30, 5, 250e6, time.UTC),
		"2026-12-04T10:30:05":     time.Date(2026, 12, 4, 10, 30, 5, 0, time.UTC),
		"04/12/2026":              {},
		"":                        {},
	} {
		if got := ParseTime(in); !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestGzip(t *testing.T) {
	var plain, z bytes.Buffer
	urls := []URL{{Loc: "http://a.test/1", Priority: -1}, {Loc: "http://a.test/2", Priority: 0.5, ChangeFreq: "never"}}
	if err := Write(&plain, URLSet, urls); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&z)
	zw.Write(plain.Bytes())
	zw.Close()
	f, err := Parse(&z, Limits{})
	if err != nil || len(f.URLs) != 2 || f.URLs[1].ChangeFreq != "never" {
		t.Fatalf("Parse(gzip) = %+v, %v; want the 2 entries written", f, err)
	}
	if _, err := Parse(strings.NewReader("\x1f\x8bnot gzip"), Limits{}); !errors.Is(err, ErrNotSitemap) {
		t.Errorf("Parse(bad gzip) error = %v, want ErrNotSitemap", err)
	}
}

// TestURLLimit: entries past the limit are counted, not returned.
func TestURLLimit(t *testing.T) {
	var b bytes.Buffer
	var urls []URL
	for i := range 25 {
		urls = append(urls, URL{Loc: "http://a.test/" + strings.Repeat("x", i), Priority: -1})
	}
	Write(&b, URLSet, urls)
	f, err := Parse(&b, Limits{URLs: 10})
	if err != nil || len(f.URLs) != 10 || f.Skipped != 15 || f.Cut {
		t.Fatalf("Parse(25 entries, limit 10) = %d entries, %d skipped, cut %v, %v; want 10, 15, false, nil", len(f.URLs), f.Skipped, f.Cut, err)
	}
}

// bigSitemap streams a <urlset> of n bytes or a little more, without
// holding it in memory.
type bigSitemap struct {
	n, done int64
	i       int
	pending []byte
}

func (b *bigSitemap) Read(p []byte) (int, error) {
	if len(b.pending) == 0 {
		switch {
		case b.done == 0:
			b.pending = []byte("<urlset>\n")
		case b.done >= b.n:
			return 0, io.EOF
		default:
			b.i++
			b.pending = []byte("<url><loc>http://a.test/page/" + strings.Repeat("0", 8) + itoa(b.i) + "</loc></url>\n")
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	b.done += int64(n)
	return n, nil
}

func itoa(i int) string {
	var d [20]byte
	n := len(d)
	for {
		n--
		d[n] = byte('0' + i%10)
		if i /= 10; i == 0 {
			return string(d[n:])
		}
	}
}

// TestByteLimit: a 60 MB sitemap is read up to the 50 MB limit, its first
// MaxURLs entries kept and the rest up to the cut counted.
func TestByteLimit(t *testing.T) {
	src := &bigSitemap{n: 60_000_000}
	f, err := Parse(src, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Cut || len(f.URLs) != MaxURLs {
		t.Fatalf("Parse(60 MB) = %d entries, cut %v; want %d, true", len(f.URLs), f.Cut, MaxURLs)
	}
	// Entries take 51 to 56 bytes: about 894,800 fit in 50 MB.
	if total := len(f.URLs) + f.Skipped; total < 893_000 || total > 896_000 {
		t.Errorf("Parse(60 MB) counted %d entries in all, want about 894,800 (those within 50 MB)", total)
	}
	if src.done > MaxBytes+1<<20 {
		t.Errorf("Parse read %d bytes, want no more than the limit and one buffer", src.done)
	}
}
