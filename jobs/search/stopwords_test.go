package search

import (
	"context"
	"strings"
	"testing"

	"github.com/webtable/webtable/jobs/jobstest"
)

// TestStopWordPhrases: a phrase made only of stop words, which the index
// does not hold, is looked for in the candidates' text: alone, beside a
// word, excluded; an unquoted stop word alone gets a note saying to quote
// it, and a scan cut short says so.
func TestStopWordPhrases(t *testing.T) {
	pages := append(testWeb(), jobstest.Page{URL: "http://h3.example.com/hamlet.html",
		HTML: "<title>Hamlet</title><p>Hamlet asks: To be, or not to be, that is the question.</p>"})
	w, dir := indexed(t, pages)
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		query   string
		scan    int
		want    []string // the hits' keys, in any order (unless scan)
		snippet string   // the first hit's, marked; "" not checked
		note    string   // in the note; "" none
	}{
		{query: `"to be or not to be"`, want: []string{"com.example.h3/hamlet.html"},
			snippet: "Hamlet Hamlet asks: [To be, or not to be], that is the question. "},
		{query: `"to be or not to be" question`, want: []string{"com.example.h3/hamlet.html"},
			snippet: "Hamlet Hamlet asks: [To be, or not to be], that is the [question]. "},
		{query: `"to be or not to be" garden`},
		{query: `"or to be"`},
		{query: `"at night"`, want: []string{"com.example.h0/1.html"}},
		{query: `garden -"at night" site:h0.example.com`, want: []string{"com.example.h0/0.html", "com.example.h0/2.html", "com.example.h0/3.html", "com.example.h0/4.html"}},
		{query: `"the" site:h0.example.com`, want: []string{"com.example.h0/1.html", "com.example.h0/2.html", "com.example.h0/3.html", "com.example.h0/4.html"}},
		{query: `the`, note: `"the"`},
		{query: `"to be or not to be"`, scan: 2, note: "first 2 candidates"},
	}
	for _, tc := range tests {
		res, err := r.Search(context.Background(), w, Request{Query: tc.query, MaxScan: tc.scan, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Key)
		}
		if tc.scan == 0 && !sameSet(got, tc.want) { // a scan cut short finds what it finds
			t.Errorf("Search(%q) = %q, want %q", tc.query, got, tc.want)
		}
		if tc.snippet != "" && len(res.Hits) > 0 {
			if s := res.Hits[0].Snippet.Marked("[", "]", nil); s != tc.snippet {
				t.Errorf("Search(%q) snippet = %q\nwant %q", tc.query, s, tc.snippet)
			}
		}
		if (tc.note == "") != (res.Note == "") || !strings.Contains(res.Note, tc.note) {
			t.Errorf("Search(%q) note = %q, want one with %q", tc.query, res.Note, tc.note)
		}
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
