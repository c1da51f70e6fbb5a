package webtable

import (
	"context"
	"fmt"
	"regexp"
	"testing"
)

// TestAnchorsPaged reads a row's incoming anchors a page at a time: every
// one once, in referrer order, and SkipAnchors leaves them out of the row.
func TestAnchorsPaged(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	const n = 23
	if _, err := w.RecordFetch(ctx, htmlPage("http://www.cnn.com/", t0, "<p>cnn")); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := w.AddLinks(ctx, fmt.Sprintf("http://s%02d.example/", i), []Anchor{{URL: "http://www.cnn.com/", Text: fmt.Sprint("link ", i)}}, nil, 1000); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		cells, next, err := w.Anchors(ctx, "com.cnn.www/", after, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(cells) > 5 || pages > n {
			t.Fatalf("page %d: %d anchors, want at most 5", pages, len(cells))
		}
		for _, c := range cells {
			if c.Family != FamilyAnchor {
				t.Fatalf("Anchors returned a cell of family %q", c.Family)
			}
			got = append(got, c.Qualifier)
		}
		if next == "" {
			break
		}
		after = next
	}
	if len(got) != n {
		t.Fatalf("paged anchors: %d, want %d: %q", len(got), n, got)
	}
	for i, q := range got {
		if want := fmt.Sprintf("s%02d.example", i); q != want {
			t.Errorf("anchor %d is from %q, want %q", i, q, want)
		}
	}
	row, err := w.Get(ctx, "com.cnn.www/", Query{SkipAnchors: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range row.Cells {
		if c.Family == FamilyAnchor {
			t.Fatalf("Get with SkipAnchors returned an anchor cell: %v", c)
		}
	}
	if len(row.Cells) == 0 {
		t.Errorf("Get with SkipAnchors returned no cell: the row's other families are gone too")
	}
}

// TestNotFamily checks the pattern against names around "anchor".
func TestNotFamily(t *testing.T) {
	re := regexp.MustCompile("^(?:" + notFamily("anchor") + ")$")
	for name, want := range map[string]bool{"anchor": false, "anchors": true, "ancho": true, "a": true, "": true,
		"contents": true, "fetch": true, "anchoR": true, "xanchor": true, "anc\nhor": true} {
		if got := re.MatchString(name); got != want {
			t.Errorf("notFamily(anchor) matches %q = %v, want %v", name, got, want)
		}
	}
}
