package search

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
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
		sel.hits[i].Snippet = makeSnippet(sel.bodies[i], locs[i])
	}
	return nil
}
