package search

import (
	"strings"
	"unicode/utf8"
)

// Snippet sizes, in bytes of text: a window of SnippetLen around the
// densest run of matches, starting up to SnippetLead before the first.
const (
	SnippetLen  = 240
	SnippetLead = 60
)

// Snippet is a piece of a version's text with the matched words marked.
type Snippet struct {
	Text string
	// Marks are the matched words, as [start, end) byte offsets in Text,
	// in order, not overlapping.
	Marks [][2]int
	// Cut says the text goes on before (Cut[0]) and after (Cut[1]).
	Cut [2]bool
}

// Marked is the snippet with each mark between before and after, each
// piece of text passed through esc (nil: as it is), and "..." where the
// text was cut.
func (s Snippet) Marked(before, after string, esc func(string) string) string {
	if esc == nil {
		esc = func(s string) string { return s }
	}
	var b strings.Builder
	if s.Cut[0] {
		b.WriteString("...")
	}
	at := 0
	for _, m := range s.Marks {
		b.WriteString(esc(s.Text[at:m[0]]))
		b.WriteString(before)
		b.WriteString(esc(s.Text[m[0]:m[1]]))
		b.WriteString(after)
		at = m[1]
	}
	b.WriteString(esc(s.Text[at:]))
	if s.Cut[1] {
		b.WriteString("...")
	}
	return b.String()
}

// makeSnippet cuts body around the densest run of spans (the matched
// words' [start, end) bytes, in order; see spansAt).
func makeSnippet(body string, spans [][2]int) Snippet {
	best, bestN := 0, 0
	for i := range spans {
		n := 0
		for j := i; j < len(spans) && spans[j][1] <= spans[i][0]+SnippetLen-SnippetLead; j++ {
			n++
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	start := 0
	if len(spans) > 0 && spans[best][0] > SnippetLead {
		start = wordStart(body, spans[best][0]-SnippetLead)
	}
	end := len(body)
	if end-start > SnippetLen {
		end = wordEnd(body, start+SnippetLen)
	}
	sn := Snippet{Text: strings.ReplaceAll(body[start:end], "\n", " "), Cut: [2]bool{start > 0, end < len(body)}}
	last := 0
	for _, sp := range spans {
		if sp[0] >= start && sp[1] <= end && sp[0]-start >= last {
			sn.Marks = append(sn.Marks, [2]int{sp[0] - start, sp[1] - start})
			last = sp[1] - start
		}
	}
	return sn
}

// wordStart moves i forward to the start of a word (after a space), at
// most 20 bytes, and to a rune boundary.
func wordStart(s string, i int) int {
	for j := i; j < len(s) && j < i+20; j++ {
		if s[j] == ' ' || s[j] == '\n' {
			return j + 1
		}
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// wordEnd moves i back to the end of a word (before a space), at most 20
// bytes, and to a rune boundary.
func wordEnd(s string, i int) int {
	for j := i; j > 0 && j > i-20; j-- {
		if s[j-1] == ' ' || s[j-1] == '\n' {
			return j - 1
		}
	}
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
