package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the module root, seen from this package's directory.
const root = "../.."

// docFiles lists the Markdown files whose links must resolve: README.md,
// CONTRIBUTING.md and everything under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing docs/: %v", err)
	}
	return files
}

var (
	// fence opens or closes a fenced code block.
	fence = regexp.MustCompile("^\\s*(```|~~~)")
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// inlineLink is [text](target) or ![alt](target), with an optional
	// "title" after the target.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refDef is a reference definition: [label]: target.
	refDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	// htmlAnchor is an explicit anchor: <a id="x"> or <a name="x">.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// scheme marks a link that leaves the repository (https:, mailto:).
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// mdLink is one link found in a Markdown file.
type mdLink struct {
	line   int
	target string
}

// parseMarkdown returns a file's links and the anchors of its headings,
// outside fenced code blocks and code spans.
func parseMarkdown(text string) (links []mdLink, anchors map[string]bool) {
	anchors = map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			a := slug(m[1])
			// GitHub numbers repeated headings: a, a-1, a-2.
			if n := seen[a]; n > 0 {
				anchors[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				anchors[a] = true
			}
			seen[a]++
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			links = append(links, mdLink{i + 1, m[1]})
			continue
		}
		plain := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(plain, -1) {
			links = append(links, mdLink{i + 1, m[1]})
		}
	}
	return links, anchors
}

// slug is GitHub's anchor for a heading: the text without Markdown marks,
// in lower case, with every character that is not a letter, a digit, a
// space, '-' or '_' removed and each space made '-'.
func slug(h string) string {
	h = inlineLink.ReplaceAllStringFunc(h, func(s string) string { // [text](url) -> text
		return s[strings.Index(s, "[")+1 : strings.Index(s, "]")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// brokenLinks checks every relative link of the files (paths relative to
// dir): the file or directory it names must exist, and a #anchor must be a
// heading of the Markdown file it points into. It returns one sentence per
// broken link.
func brokenLinks(dir string, files []string) ([]string, error) {
	type parsed struct {
		links   []mdLink
		anchors map[string]bool
	}
	cache := map[string]*parsed{}
	parse := func(rel string) (*parsed, error) {
		if p, ok := cache[rel]; ok {
			return p, nil
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		links, anchors := parseMarkdown(string(b))
		p := &parsed{links, anchors}
		cache[rel] = p
		return p, nil
	}
	var out []string
	for _, f := range files {
		p, err := parse(f)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			if scheme.MatchString(l.target) || strings.HasPrefix(l.target, "//") {
				continue // leaves the repository
			}
			path, anchor, _ := strings.Cut(l.target, "#")
			target := f // a bare #anchor points into the file itself
			if path != "" {
				if strings.HasPrefix(path, "/") {
					target = strings.TrimPrefix(path, "/")
				} else {
					target = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
				}
				if strings.HasPrefix(target, "../") {
					out = append(out, fmt.Sprintf("%s:%d: link %q leaves the repository", f, l.line, l.target))
					continue
				}
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
					out = append(out, fmt.Sprintf("%s:%d: link %q: %s does not exist", f, l.line, l.target, target))
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				out = append(out, fmt.Sprintf("%s:%d: link %q: an anchor into %s, which is not Markdown", f, l.line, l.target, target))
				continue
			}
			tp, err := parse(target)
			if err != nil {
				return nil, err
			}
			if !tp.anchors[anchor] {
				headings := make([]string, 0, len(tp.anchors))
				for a := range tp.anchors {
					headings = append(headings, a)
				}
				slices.Sort(headings)
				out = append(out, fmt.Sprintf("%s:%d: link %q: %s has no heading #%s (it has: %s)", f, l.line, l.target, target, anchor, strings.Join(headings, ", ")))
			}
		}
	}
	return out, nil
}

// TestDocLinks checks that every relative link in README.md,
// CONTRIBUTING.md and docs/ leads somewhere: a file or directory of the
// repository and, for #anchor, a heading of that file (GitHub's anchors).
func TestDocLinks(t *testing.T) {
	files := docFiles(t)
	broken, err := brokenLinks(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}

// TestBrokenLinksDetected proves the checker finds what it must, so that
// TestDocLinks passing means something.
func TestBrokenLinksDetected(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/schema.md", "# Schema\n\n## The `fetch` family\n\n## Reserved rows (`~frontier/`, ...)\n\n## Notes\n\n## Notes\n")
	write("cmd/crawl/main.go", "package main\n")
	tests := []struct {
		name string
		text string
		want string // substring of the single broken link; "" for none
	}{
		{"a file that exists", "[schema](docs/schema.md)", ""},
		{"a directory that exists", "[crawl](cmd/crawl)", ""},
		{"a missing file", "[perf](docs/performance.md)", "docs/performance.md does not exist"},
		{"a heading with code", "[f](docs/schema.md#the-fetch-family)", ""},
		{"a heading with punctuation", "[r](docs/schema.md#reserved-rows-frontier-)", ""},
		{"a repeated heading", "[n](docs/schema.md#notes-1)", ""},
		{"a missing anchor", "[x](docs/schema.md#columns)", "has no heading #columns"},
		{"an anchor in this file", "# Top\n\n[t](#top)", ""},
		{"a missing anchor in this file", "# Top\n\n[t](#bottom)", "has no heading #bottom"},
		{"an image", "![pic](docs/missing.png)", "docs/missing.png does not exist"},
		{"a reference definition", "[perf]: docs/gone.md", "docs/gone.md does not exist"},
		{"outside the repository", "[s](../shared/STYLE.md)", "leaves the repository"},
		{"a web link", "[go](https://go.dev/doc/)", ""},
		{"inside a code span", "`[x](nowhere.md)`", ""},
		{"inside a code block", "```\n[x](nowhere.md)\n```", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write("README.md", tc.text+"\n")
			got, err := brokenLinks(dir, []string{"README.md"})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("brokenLinks = %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("brokenLinks = %q, want one containing %q", got, tc.want)
			}
		})
	}
}
