package webtable

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

func TestSchemaListsFamiliesWithTheirGCPolicies(t *testing.T) {
	w, _ := openTemp(t)
	tables, fams, err := w.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tables, []string{TableName}) || w.Table() != TableName {
		t.Errorf("tables %q, table %q; want [%s] and %s", tables, w.Table(), TableName, TableName)
	}
	want := []FamilyInfo{{FamilyAnchor, "versions() > 1"}, {FamilyContents, "versions() > 3"}, {FamilyFetch, "versions() > 1"}, {FamilyMIME, "versions() > 1"}}
	if !slices.Equal(fams, want) {
		t.Errorf("families %v, want %v", fams, want)
	}
}

func TestFetchOfAndFetchTimes(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for i, u := range []string{"http://a.test/", "http://b.test/", "http://b.test/x"} {
		if _, err := w.RecordFetch(ctx, htmlPage(u, t0.Add(time.Duration(i)*time.Hour), "<p>x")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Enqueue(ctx, []crawlstore.Entry{{URL: "http://c.test/", Depth: 2}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	row, err := w.Get(ctx, "test.b/x", Query{Versions: -1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := FetchOf(row)
	if err != nil || f.URL != "http://b.test/x" || f.Status != 200 || !f.Time.Equal(t0.Add(2*time.Hour)) || f.Charset != "utf-8" {
		t.Errorf("FetchOf(test.b/x) = %+v, %v; want its fetch record", f, err)
	}
	var got []string
	err = w.FetchTimes(ctx, nil, func(row string, at time.Time) bool {
		got = append(got, row+" "+at.UTC().Format(time.TimeOnly))
		return true
	})
	// c.test was only queued: it has no fetch time.
	if want := []string{"test.a/ 12:00:00", "test.b/ 13:00:00", "test.b/x 14:00:00"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("FetchTimes = %q, %v; want %q", got, err, want)
	}
	empty, err := FetchOf(Row{Key: "none"})
	if err != nil || empty.URL != "" || empty.Fetched() {
		t.Errorf("FetchOf of a row without fetch cells = %+v, %v; want a zero Fetch", empty, err)
	}
}
