package webtable

import (
	"context"
	"slices"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

func TestTopRanked(t *testing.T) {
	w, _ := openTemp(t)
	defer w.Close()
	ctx := context.Background()
	if err := w.EnsureDerived(ctx); err != nil {
		t.Fatal(err)
	}
	ranks := map[string]string{
		"com.cnn.www/":        "0.5",
		"com.cnn.www/a":       "0.25",
		"com.cnn.www/b":       "0.5", // ties com.cnn.www/: by key
		"com.cnn.www/bad":     "not a number",
		"org.example.www/":    "0.75",
		"org.example.www/low": "0.125",
	}
	var writes []DerivedWrite
	for k, v := range ranks {
		writes = append(writes, DerivedWrite{Key: k, Family: FamilyRank, Cells: []DerivedCell{{Qualifier: "page", Timestamp: 5000, Value: []byte(v)}}})
	}
	if err := w.WriteDerived(ctx, writes); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		ranges []urlkey.Range
		n      int
		want   []RankedPage
	}{
		{"whole table", nil, 3, []RankedPage{{"org.example.www/", 0.75}, {"com.cnn.www/", 0.5}, {"com.cnn.www/b", 0.5}}},
		{"more than there are", nil, 10, []RankedPage{{"org.example.www/", 0.75}, {"com.cnn.www/", 0.5}, {"com.cnn.www/b", 0.5}, {"com.cnn.www/a", 0.25}, {"org.example.www/low", 0.125}}},
		{"one domain", urlkey.DomainRanges("cnn.com"), 2, []RankedPage{{"com.cnn.www/", 0.5}, {"com.cnn.www/b", 0.5}}},
		{"none", nil, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.TopRanked(ctx, tc.ranges, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("TopRanked(%v, %d) = %v, want %v", tc.ranges, tc.n, got, tc.want)
			}
		})
	}
}
