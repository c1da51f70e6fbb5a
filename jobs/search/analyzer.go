package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// TextAnalyzer is the analyzer of the text fields (title, body, anchor):
// bleve's "en" (Unicode words, lower case, English stop words,
// possessives, Porter stemming) whose tokens keep their positions, for
// phrases, but not their byte offsets. NB: offsets were a quarter of the
// index (three varints per word); a snippet finds its words' bytes
// again by analysing the hit's text with "en" (locate.go).
const TextAnalyzer = "webtable-en"

// positionsOnly is an analyzer that drops the byte offsets of another's
// tokens.
type positionsOnly struct{ analysis.Analyzer }

// Analyze is the wrapped analyzer's tokens with Start and End zero.
func (a positionsOnly) Analyze(input []byte) analysis.TokenStream {
	ts := a.Analyzer.Analyze(input)
	for _, t := range ts {
		t.Start, t.End = 0, 0
	}
	return ts
}

func init() {
	err := registry.RegisterAnalyzer(TextAnalyzer, func(config map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
		a, err := cache.AnalyzerNamed(en.AnalyzerName)
		if err != nil {
			return nil, err
		}
		return positionsOnly{a}, nil
	})
	if err != nil {
		panic(err)
	}
}
