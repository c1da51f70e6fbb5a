package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		name  string
		html  string
		ctype string
		want  string
	}{
		{
			name: "blocks are lines, inline runs joined",
			html: "<html><head><title> The  Title </title><style>p{}</style></head><body><h1>Head</h1><p>one <b>two</b>\n three</p><ul><li>a<li>b</ul>x<br>y</body>",
			want: "The Title\nHead\none two three\na\nb\nx\ny\n",
		},
		{
			name: "scripts, templates and form values are not text",
			html: `<p>before<script>alert("x")</script><noscript>ns</noscript><template>t</template><textarea>secret</textarea>after</p>`,
			want: "beforeafter\n",
		},
		{
			name: "unclosed head ends at body",
			html: `<head><title>T</title><body><p>shown`,
			want: "T\nshown\n",
		},
		{
			name: "title without head",
			html: `<title>T</title><p>shown</p>`,
			want: "T\nshown\n",
		},
		{
			name:  "charset from the content type",
			html:  "<p>caf\xe9</p>",
			ctype: "text/html; charset=iso-8859-1",
			want:  "café\n",
		},
		{
			name: "broken UTF-8 becomes U+FFFD",
			html: "<p>a\xffb</p>",
			want: "a\ufffdb\n",
		},
		{
			name: "entities decoded",
			html: "<p>Tom &amp; Jerry &lt;3</p>",
			want: "Tom & Jerry <3\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctype := tc.ctype
			if ctype == "" {
				ctype = "text/html; charset=utf-8"
			}
			got, truncated := Text([]byte(tc.html), ctype, 1<<20)
			if got != tc.want || truncated {
				t.Errorf("Text(%q) = %q (truncated %v), want %q", tc.html, got, truncated, tc.want)
			}
		})
	}
}

func TestTextBounded(t *testing.T) {
	page := strings.Repeat("<p>"+strings.Repeat("word ", 30)+"</p>", 1000)
	got, truncated := Text([]byte(page), "text/html", 1000)
	if !truncated || len(got) > 1000 || !strings.HasSuffix(got, "\n") {
		t.Errorf("Text of a long page gave %d bytes (truncated %v), want at most 1000 ending a line, truncated", len(got), truncated)
	}
	long := "<p>" + strings.Repeat("x", 5000) + "</p>"
	got, _ = Text([]byte(long), "text/html", 1000)
	if len(got) > 1000 {
		t.Errorf("one long line gave %d bytes, want at most 1000", len(got))
	}
}

// FuzzText checks that any bytes give bounded, valid UTF-8 text with no
// empty line and no run of white space.
func FuzzText(f *testing.F) {
	f.Add([]byte("<title>t</title><p>a<script>b</script>c</p>"), "text/html")
	f.Add([]byte("<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>"), "")
	f.Add([]byte("<p>\xff\xfe</p><br><br>"), "text/html; charset=gbk")
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		got, _ := Text(body, ctype, 4096)
		if len(got) > 4096 || !utf8.ValidString(got) {
			t.Fatalf("Text gave %d bytes (valid UTF-8: %v), want at most 4096 valid", len(got), utf8.ValidString(got))
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if got != "" && (l == "" || l != strings.Join(strings.Fields(l), " ")) {
				t.Fatalf("line %q is empty or not collapsed", l)
			}
		}
	})
}

func TestTitle(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "<html><head><title>CNN  \n Home</title></head><body>x</body>", "CNN Home"},
		{"entities", "<title>A &amp; B</title>", "A & B"},
		{"none", "<html><body><h1>no title</h1></body>", ""},
		{"title in body ignored", "<body><p>x</p><title>late</title>", ""},
		{"unclosed", "<title>open", "open"},
		{"latin-1", "<meta charset=iso-8859-1><title>caf\xe9</title>", "café"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Title([]byte(tc.in), ""); got != tc.want {
				t.Errorf("Title(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
