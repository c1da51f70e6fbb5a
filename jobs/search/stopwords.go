package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
)

// MaxScan is how many candidates, at most, a search reads (unless its
// Request says) from the table
// to look for a phrase made only of stop words ("to be or not to be"),
// which the index does not hold: the other words and filters of the query
// choose the candidates (all versions when there are none), and the text
// of each is read and looked through.
const MaxScan = 20000

// scanPhrase is a phrase the index cannot find, looked for in the text.
type scanPhrase struct {
	text  string   // as asked
	words []string // lower case, as the index's tokenizer cuts them
}

// tokens are the words of a text as the index's tokenizer cuts them, in
// lower case, with their [start, end) bytes.
type tokens struct {
	words []string
	spans [][2]int
}

// tokenize cuts text into words as TextAnalyzer's tokenizer does.
func tokenize(text string) tokens {
	var t tokens
	for _, tok := range unicode.NewUnicodeTokenizer().Tokenize([]byte(text)) {
		t.words = append(t.words, strings.ToLower(string(tok.Term)))
		t.spans = append(t.spans, [2]int{tok.Start, tok.End})
	}
	return t
}

// scanPhrases are the phrases and excluded phrases of q that are made
// only of stop words (the index holds none of their words).
func scanPhrases(m *mapping.IndexMappingImpl, q Query) (phrases, excluded []scanPhrase) {
	for _, p := range q.Phrases {
		if !analyzable(m, p) {
			phrases = append(phrases, scanPhrase{p, tokenize(p).words})
		}
	}
	for _, e := range q.Excluded {
		if strings.Contains(e, " ") && !analyzable(m, e) {
			excluded = append(excluded, scanPhrase{e, tokenize(e).words})
		}
	}
	return phrases, excluded
}

// find is the spans of each occurrence of p in t, its words consecutive.
func (p scanPhrase) find(t tokens) [][2]int {
	var out [][2]int
	n := len(p.words)
	if n == 0 {
		return nil
	}
	for i := 0; i+n <= len(t.words); i++ {
		if slices.Equal(t.words[i:i+n], p.words) {
			out = append(out, [2]int{t.spans[i][0], t.spans[i+n-1][1]})
		}
	}
	return out
}

// scanMatch checks a version's title and text against the phrases the
// index cannot find: all of phrases must occur (in the title or text), none
// of excluded. It returns the spans of phrases' occurrences in body, for
// the snippet.
func scanMatch(phrases, excluded []scanPhrase, title, body string) (ok bool, spans [][2]int) {
	if len(phrases) == 0 && len(excluded) == 0 {
		return true, nil
	}
	tt, bt := tokenize(title), tokenize(body)
	for _, p := range phrases {
		found := p.find(bt)
		if len(found) == 0 && len(p.find(tt)) == 0 {
			return false, nil
		}
		spans = append(spans, found...)
	}
	for _, e := range excluded {
		if len(e.find(bt)) > 0 || len(e.find(tt)) > 0 {
			return false, nil
		}
	}
	return true, spans
}

// stopNote says what a search could not do with stop words: "" when it
// did all it was asked. A query of stop words alone, unquoted, gets a
// note that says to quote them.
func stopNote(m *mapping.IndexMappingImpl, q Query, phrases []scanPhrase, scanned int, exhausted bool) string {
	if len(phrases) > 0 && !exhausted {
		return fmt.Sprintf("%q is made only of stop words (common words such as \"the\", which the index leaves out): "+
			"looked for it in the text of the first %d candidates only; add a word that is not one, or site:, to look at all",
			phrases[0].text, scanned)
	}
	var dropped []string
	for _, w := range q.Words {
		if hasWord(w) && !analyzable(m, w) {
			dropped = append(dropped, w)
		}
	}
	if len(dropped) < len(q.Words) || len(q.Phrases) > 0 {
		return "" // the other words found what they found
	}
	return fmt.Sprintf("left out %s: stop words (common words such as \"the\") are not indexed; "+
		"put them in quotes with the words around them to look for the phrase, e.g. \"%s\"",
		strings.Join(dropped, ", "), strings.Join(q.Words, " "))
}
