package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// locate makes the snippets of the hits sel kept. The ranking pass asks
// bleve for no term locations (with them, every matching version, most
// of the index for a common word, had its locations gathered); this asks
// for them for the hits shown only: the same query, restricted to their
// document ids.
func (r *Reader) locate(ctx context.Context, bq query.Query, sel *selector) error {
	if len(sel.hits) == 0 {
		return nil
	}
	q := query.NewConjunctionQuery([]query.Query{bq, query.NewDocIDQuery(sel.ids)})
	sr := bleve.NewSearchRequestOptions(q, 2*len(sel.ids), 0, false)
	sr.IncludeLocations = true
	out, err := r.alias.SearchInContext(ctx, sr)
	if err != nil {
		return fmt.Errorf("search: snippets: %w", err)
	}
	at := make(map[string]int, len(sel.ids))
	for i, id := range sel.ids {
		at[id] = i
	}
	locs := make([]bsearch.TermLocationMap, len(sel.ids))
	for _, m := range out.Hits {
		if i, ok := at[m.ID]; ok && locs[i] == nil {
			locs[i] = m.Locations[FieldBody]
		}
	}
	for i := range sel.hits {
		spans := append(spansAt(sel.bodies[i], locs[i]), sel.found[i]...)
		slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
		sel.hits[i].Snippet = makeSnippet(sel.bodies[i], slices.Compact(spans))
	}
	return nil
}

// spansAt maps the term locations of a field back to byte spans of its
// text, in order, without repeats. The index keeps each term's position
// (the word's number in the text, from 1, stop words counted), not its
// bytes (see TextAnalyzer): the text is cut into words again by the
// tokenizer the index used, whose positions are the same.
func spansAt(text string, locs bsearch.TermLocationMap) [][2]int {
	if len(locs) == 0 {
		return nil
	}
	want := map[int]bool{}
	for _, ls := range locs {
		for _, l := range ls {
			want[int(l.Pos)] = true
		}
	}
	var spans [][2]int
	for _, tok := range unicode.NewUnicodeTokenizer().Tokenize([]byte(text)) {
		if want[tok.Position] {
			spans = append(spans, [2]int{tok.Start, tok.End})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	return slices.Compact(spans)
}
