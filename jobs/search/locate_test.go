package search

import (
	"context"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/webtable/webtable/jobs/jobstest"
)

// TestSnippetMarks: the hits shown have their matched words marked, from
// the term locations asked for after the ranking pass, and only those.
func TestSnippetMarks(t *testing.T) {
	w, dir := indexed(t, testWeb())
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct{ query, want string }{
		{"lilies", "Garden 0 Roses grow in garden number 0. [Lilies] open in May. "},
		{"snails lettuce", "Garden 1 Roses grow in garden number 1. [Snails] eat the [lettuce] at night. "},
		{`"garden number 3"`, "Garden 3 Roses grow in [garden] [number] [3]. A compost heap feeds the beds with what the kitchen throws away. "},
	}
	for _, tc := range tests {
		res, err := r.Search(context.Background(), w, Request{Query: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 {
			t.Fatalf("Search(%q): %d hits, want 1", tc.query, len(res.Hits))
		}
		if got := res.Hits[0].Snippet.Marked("[", "]", nil); got != tc.want {
			t.Errorf("Search(%q) snippet = %q\nwant %q", tc.query, got, tc.want)
		}
	}
}

// TestSpansAt: the positions the index keeps map back to the bytes of
// the same words, as bleve's "en" analyzer (which keeps both) finds them,
// with stop words, punctuation, possessives and multi-byte letters before
// and between the matches.
func TestSpansAt(t *testing.T) {
	m := NewMapping()
	for _, text := range []string{
		"Garden 3 Roses grow in garden number 3. Gardens: the gardener's garden.",
		"The tulip, the tulips and the tulip's bulbs; naïve café tulip — tulip!",
		"To be or not to be: Öl, Ölkanne, élan élan.",
	} {
		toks, err := m.AnalyzeText(en.AnalyzerName, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		locs := bsearch.TermLocationMap{}
		var want [][2]int
		for i, tok := range toks {
			if i%2 == 1 {
				continue // every other word, so that a shift by one shows
			}
			term := string(tok.Term)
			locs[term] = append(locs[term], &bsearch.Location{Pos: uint64(tok.Position)})
			want = append(want, [2]int{tok.Start, tok.End})
		}
		if got := spansAt(text, locs); !slices.Equal(got, want) {
			t.Errorf("spansAt(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSnippetMarksAcrossFields: a page matched in its title, its anchor
// text and several times in its text has each of the matches in its text
// marked, and nothing else.
func TestSnippetMarksAcrossFields(t *testing.T) {
	w, dir := indexed(t, []jobstest.Page{
		{URL: "http://h0.example.com/tulips.html",
			HTML: "<title>Tulip beds</title><p>The tulips of the garden, and more tulips: the tulip's colour is red. Roses too.</p>"},
		{URL: "http://h1.example.com/", HTML: "<title>Links</title><p>See the <a href='http://h0.example.com/tulips.html'>tulip garden</a>.</p>",
			Links: []string{"http://h0.example.com/tulips.html"}},
	})
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct{ query, want string }{
		{"tulip", "[Tulip] beds The [tulips] of the garden, and more [tulips]: the [tulip's] colour is red. Roses too. "},
		{"tulip roses", "[Tulip] beds The [tulips] of the garden, and more [tulips]: the [tulip's] colour is red. [Roses] too. "},
		{`"tulip beds" colour`, "[Tulip] [beds] The tulips of the garden, and more tulips: the tulip's [colour] is red. Roses too. "},
	}
	for _, tc := range tests {
		res, err := r.Search(context.Background(), w, Request{Query: tc.query, Filters: Filters{Sites: []string{"h0.example.com"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 {
			t.Fatalf("Search(%q): %d hits, want 1", tc.query, len(res.Hits))
		}
		if got := res.Hits[0].Snippet.Marked("[", "]", nil); got != tc.want {
			t.Errorf("Search(%q) snippet = %q\nwant %q", tc.query, got, tc.want)
		}
	}
}
