package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is a parsed search query.
type Query struct {
	Words    []string // each must match (in the title, body, anchors or URL)
	Phrases  []string // each must match as a phrase (title, body or anchors)
	Excluded []string // words and phrases that must not match
	Sites    []string // site:DOMAIN: hits on that host or under that domain
}

// SyntaxError is a query that cannot be parsed: what is wrong, and at
// which character (1-based, in runes).
type SyntaxError struct {
	Query string
	Char  int
	Msg   string
}

// Error says what is wrong and points at the character on a second line:
//
//	search: unclosed quote at character 5 (close the phrase with ")
//	  foo "bar
//	      ^
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("search: %s at character %d\n  %s\n  %s^", e.Msg, e.Char, e.Query,
		strings.Repeat(" ", max(e.Char-1, 0)))
}

// MaxQuery bounds a query, in bytes.
const MaxQuery = 1 << 10

// Parse parses a query: words, "quoted phrases", -excluded words or
// "phrases", and site:DOMAIN. At least one word or phrase must not be
// excluded. A word of punctuation alone (an em dash) is left out.
//
//	web crawler             both words
//	"web crawler"           the phrase
//	crawler -spider         crawler, not spider
//	crawler site:cnn.com    crawler on cnn.com or a host under it
func Parse(s string) (Query, error) {
	var q Query
	if !utf8.ValidString(s) {
		return q, &SyntaxError{Query: strings.ToValidUTF8(s, "?"), Char: 1, Msg: "the query is not valid UTF-8"}
	}
	if len(s) > MaxQuery {
		return q, &SyntaxError{Query: s[:40] + "...", Char: 1, Msg: fmt.Sprintf("the query is longer than %d bytes", MaxQuery)}
	}
	fail := func(at int, msg string) error {
		return &SyntaxError{Query: s, Char: utf8.RuneCountInString(s[:at]) + 1, Msg: msg}
	}
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		start := i
		neg := false
		if s[i] == '-' {
			neg = true
			i++
			if i == len(s) || isSpace(s, i) {
				return q, fail(start, `a "-" excludes the word after it, and none follows`)
			}
		}
		if s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return q, fail(i, `unclosed quote (end the phrase with another ")`)
			}
			phrase := strings.Join(strings.Fields(s[i+1:i+1+end]), " ")
			if !hasWord(phrase) {
				return q, fail(i, "an empty phrase")
			}
			if neg {
				q.Excluded = append(q.Excluded, phrase)
			} else {
				q.Phrases = append(q.Phrases, phrase)
			}
			i += end + 2
			continue
		}
		j := i
		for j < len(s) && !isSpace(s, j) && s[j] != '"' {
			_, n := utf8.DecodeRuneInString(s[j:])
			j += n
		}
		word := s[i:j]
		i = j
		if site, ok := strings.CutPrefix(strings.ToLower(word), "site:"); ok && !neg {
			site = strings.Trim(site, ".")
			if site == "" || strings.ContainsAny(site, "/ ") {
				return q, fail(start, "site: needs a host or domain right after it (site:cnn.com)")
			}
			q.Sites = append(q.Sites, site)
			continue
		}
		if !hasWord(word) {
			continue // NB: punctuation alone ("—", "&") is no word to look for
		}
		if neg {
			q.Excluded = append(q.Excluded, word)
		} else {
			q.Words = append(q.Words, word)
		}
	}
	if len(q.Words) == 0 && len(q.Phrases) == 0 {
		return q, fail(len(s), "nothing to search for (give a word or a \"phrase\"; -word and site: only narrow a search)")
	}
	return q, nil
}

func isSpace(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// String is the query in the form Parse reads.
func (q Query) String() string {
	var parts []string
	quote := func(p string) string {
		if strings.ContainsFunc(p, unicode.IsSpace) {
			return `"` + p + `"`
		}
		return p
	}
	parts = append(parts, q.Words...)
	for _, p := range q.Phrases {
		parts = append(parts, `"`+p+`"`)
	}
	for _, e := range q.Excluded {
		parts = append(parts, "-"+quote(e))
	}
	for _, s := range q.Sites {
		parts = append(parts, "site:"+s)
	}
	return strings.Join(parts, " ")
}
