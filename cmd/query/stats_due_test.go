package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// TestStatsDue: query stats shows the pages of a continuous crawl due now
// and within a day, and the histogram of their estimated change rates.
func TestStatsDue(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	w, err := stores.Open(ctx, dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i, p := range []struct {
		due  time.Duration
		rate float64
	}{{-time.Hour, 1.0 / 3600}, {time.Hour, 1.0 / 3600}, {48 * time.Hour, 0}, {-time.Minute, -1}} {
		u := "http://a.test/" + string(rune('a'+i))
		key, _ := urlkey.Key(u)
		pg := &crawlstore.Page{URL: u, FinalURL: u, Key: key, Time: now.Add(-2 * time.Hour), Status: 200,
			Change: crawlstore.Change{Visits: 3, Changes: 1, Span: time.Hour, Rate: p.rate, Due: now.Add(p.due)}}
		if _, err := w.CrawlStore().SavePage(ctx, pg); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runQuery("--db", dir, "stats")
	if code != 0 {
		t.Fatalf("query stats: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"due        4 pages to fetch again: 2 due now, 3 within a day", "not known yet", "never", "10 to 100"} {
		if !strings.Contains(out, want) {
			t.Errorf("query stats does not say %q:\n%s", want, out)
		}
	}
	code, out, stderr = runQuery("--db", dir, "stats", "--json")
	var got struct{ Due jsonDue }
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("query stats --json: exit %d, %q, %s", code, out, stderr)
	}
	want := jsonDue{Entries: 4, Now: 2, Day: 3, Rates: map[string]int64{"never": 1, "unknown": 1, "1e1": 2}}
	if got.Due.Entries != want.Entries || got.Due.Now != want.Now || got.Due.Day != want.Day || len(got.Due.Rates) != 3 || got.Due.Rates["1e1"] != 2 {
		t.Errorf("query stats --json due = %+v, want %+v", got.Due, want)
	}
}
