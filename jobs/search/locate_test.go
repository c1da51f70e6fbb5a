package search

import (
	"context"
	"testing"
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
