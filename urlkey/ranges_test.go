package urlkey_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// inRanges reports whether key lies in one of rs.
func inRanges(key string, rs []urlkey.Range) bool {
	for _, r := range rs {
		if r.Contains(key) {
			return true
		}
	}
	return false
}

// checkSortedDisjoint fails unless rs are non-empty, sorted and disjoint.
func checkSortedDisjoint(t *testing.T, name string, rs []urlkey.Range) {
	t.Helper()
	for i, r := range rs {
		if r.End != "" && r.Start >= r.End {
			t.Errorf("%s: range %d %v is empty", name, i, r)
		}
		if i > 0 && (rs[i-1].End == "" || rs[i-1].End > r.Start) {
			t.Errorf("%s: ranges %v and %v overlap or are out of order", name, rs[i-1], r)
		}
	}
}

func TestDomainRanges(t *testing.T) {
	tests := []struct {
		domain  string
		want    []urlkey.Range
		in, out []string // keys inside and outside
	}{
		{
			domain: "cnn.com",
			want:   []urlkey.Range{{"com.cnn.", "com.cnn0"}, {"com.cnn:", "com.cnn;"}},
			in: []string{"com.cnn/", "com.cnn/a?b", "com.cnn.www/", "com.cnn:8080/",
				"com.cnn.www.edition/", "com.cnn.www:8080/x", "com.cnn.a-b/"},
			out: []string{"com.cnnsi/", "com.cnn-money/", "com.cnnx.www/", "com.cnn0/",
				"com.cnn9.www:80/", "com.cn/", "com.cnm/", "com/", "org.cnn/", "com.cnn_x/"},
		},
		{
			domain: "CNN.COM.",
			want:   []urlkey.Range{{"com.cnn.", "com.cnn0"}, {"com.cnn:", "com.cnn;"}},
		},
		{
			domain: "bücher.de",
			want:   []urlkey.Range{{"de.xn--bcher-kva.", "de.xn--bcher-kva0"}, {"de.xn--bcher-kva:", "de.xn--bcher-kva;"}},
			in:     []string{"de.xn--bcher-kva.www/a"},
		},
		{
			domain: "com",
			want:   []urlkey.Range{{"com.", "com0"}, {"com:", "com;"}},
			in:     []string{"com.cnn.www/", "com/"},
			out:    []string{"co.uk/", "comx/", "org.cnn/"},
		},
		{
			domain: "127.0.0.1",
			want:   []urlkey.Range{{"127.0.0.1/", "127.0.0.10"}, {"127.0.0.1:", "127.0.0.1;"}},
			in:     []string{"127.0.0.1/", "127.0.0.1:8080/x"},
			out:    []string{"127.0.0.10/", "127.0.0.11:80/"},
		},
		{
			domain: "[::1]",
			want:   []urlkey.Range{{"[::1]/", "[::1]0"}, {"[::1]:", "[::1];"}},
		},
		{domain: "", want: nil},
		{domain: "a..b", want: nil},
		{domain: "cnn.com:8080", want: nil},
	}
	for _, tc := range tests {
		got := urlkey.DomainRanges(tc.domain)
		if !slices.Equal(got, tc.want) {
			t.Errorf("DomainRanges(%q) = %v, want %v", tc.domain, got, tc.want)
		}
		checkSortedDisjoint(t, "DomainRanges("+tc.domain+")", got)
		for _, k := range tc.in {
			if !inRanges(k, got) {
				t.Errorf("DomainRanges(%q) = %v does not hold %q", tc.domain, got, k)
			}
		}
		for _, k := range tc.out {
			if inRanges(k, got) {
				t.Errorf("DomainRanges(%q) = %v holds %q", tc.domain, got, k)
			}
		}
	}
}

func TestHostRanges(t *testing.T) {
	got := urlkey.HostRanges("WWW.cnn.com")
	want := []urlkey.Range{{"com.cnn.www/", "com.cnn.www0"}, {"com.cnn.www:", "com.cnn.www;"}}
	if !slices.Equal(got, want) {
		t.Fatalf("HostRanges(%q) = %v, want %v", "WWW.cnn.com", got, want)
	}
	checkSortedDisjoint(t, "HostRanges", got)
	for _, k := range []string{"com.cnn.www/", "com.cnn.www/a", "com.cnn.www:8080/"} {
		if !inRanges(k, got) {
			t.Errorf("HostRanges(www.cnn.com) does not hold %q", k)
		}
	}
	for _, k := range []string{"com.cnn/", "com.cnn.www.edition/", "com.cnn.www0/", "com.cnn.wwwx/", "com.cnn.ww/"} {
		if inRanges(k, got) {
			t.Errorf("HostRanges(www.cnn.com) holds %q", k)
		}
	}
	if got := urlkey.HostRanges("bücher.de"); len(got) != 2 || got[0].Start != "de.xn--bcher-kva/" {
		t.Errorf("HostRanges(bücher.de) = %v", got)
	}
	if got := urlkey.HostRanges("a b"); got != nil {
		t.Errorf("HostRanges(%q) = %v, want nil", "a b", got)
	}
}

func TestPrefixRange(t *testing.T) {
	tests := []struct {
		prefix  string
		want    urlkey.Range
		in, out []string
	}{
		{
			prefix: "http://www.cnn.com/2024/",
			want:   urlkey.Range{"com.cnn.www/2024/", "com.cnn.www/20240"},
			in:     []string{"com.cnn.www/2024/", "com.cnn.www/2024/01/a.html"},
			out:    []string{"com.cnn.www/2024", "com.cnn.www/2025/", "com.cnn.www/", "com.cnn.www:8080/2024/"},
		},
		{
			prefix: "http://www.cnn.com",
			want:   urlkey.Range{"com.cnn.www/", "com.cnn.www0"},
			in:     []string{"com.cnn.www/", "com.cnn.www/x?y"},
			out:    []string{"com.cnn.www.edition/", "com.cnn.www:8080/"},
		},
		{
			prefix: "https://www.cnn.com:8080/a b",
			want:   urlkey.Range{"com.cnn.www:8080/a%20b", "com.cnn.www:8080/a%20c"},
		},
		{
			prefix: "http://www.cnn.com/search?q=",
			want:   urlkey.Range{"com.cnn.www/search?q=", "com.cnn.www/search?q>"},
		},
	}
	for _, tc := range tests {
		got, err := urlkey.PrefixRange(tc.prefix)
		if err != nil || got != tc.want {
			t.Errorf("PrefixRange(%q) = %v, %v, want %v", tc.prefix, got, err, tc.want)
		}
		for _, k := range tc.in {
			if !got.Contains(k) {
				t.Errorf("PrefixRange(%q) = %v does not hold %q", tc.prefix, got, k)
			}
		}
		for _, k := range tc.out {
			if got.Contains(k) {
				t.Errorf("PrefixRange(%q) = %v holds %q", tc.prefix, got, k)
			}
		}
	}
	_, err := urlkey.PrefixRange("ftp://cnn.com/")
	var e *urlkey.Error
	if !errors.Is(err, urlkey.ErrScheme) || !errors.As(err, &e) || e.Op != "prefix" {
		t.Errorf("PrefixRange(ftp://cnn.com/) error = %v, want *Error{Op: prefix} wrapping ErrScheme", err)
	}
}

func TestRangeContains(t *testing.T) {
	all := urlkey.Range{}
	if !all.Contains("") || !all.Contains("\xff\xff") {
		t.Error("Range{} does not hold every key")
	}
	r := urlkey.Range{Start: "b", End: "c"}
	for k, want := range map[string]bool{"a": false, "b": true, "bzz": true, "c": false} {
		if got := r.Contains(k); got != want {
			t.Errorf("%v.Contains(%q) = %v, want %v", r, k, got, want)
		}
	}
}
