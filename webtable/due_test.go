package webtable

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// TestDueKeyLayout: due keys of a host sort by due time, parse back, sit
// in the reserved space, and bad keys are refused.
func TestDueKeyLayout(t *testing.T) {
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, host := range []string{"www.cnn.com", "127.0.0.1:8080", "[::1]:8080"} {
		// In the order they must sort.
		dues := []time.Time{base, base.Add(time.Microsecond), base.Add(time.Hour), base.Add(30 * 24 * time.Hour)}
		prev := ""
		for _, due := range dues {
			k := DueEntryKey(host, due, "com.cnn.www/x")
			if k <= prev {
				t.Errorf("due %v of %s sorts at or before the one before: %q <= %q", due, host, k, prev)
			}
			prev = k
			h, got, err := ParseDueKey(k)
			if err != nil || h != host || !got.Equal(due) {
				t.Errorf("ParseDueKey(%q) = %q, %v, %v; want %q, %v", k, h, got, err, host, due)
			}
			if !strings.HasPrefix(k, DueHostPrefix(host)) || !IsReserved(k) || PageRange().Contains(k) {
				t.Errorf("due key %q is not under its host's prefix in the reserved space", k)
			}
		}
		if a, b := DueEntryKey(host, base, "k/1"), DueEntryKey(host, base, "k/2"); a == b {
			t.Errorf("two pages due at one time share the key %q", a)
		}
	}
	for _, bad := range []string{"~due/", "~due/000001/x/short", "~due/999999/x/0000000000000000000000000000000000", "~due/000000/www.cnn.com/00000000000000000000000000000000", "~due/+00001/x/00000000000000000000000000000000", "~frontier/000001/x/00000000000000000000000000000000", "~due/000001/x/zz00000000000000000000000000000000"} {
		if _, _, err := ParseDueKey(bad); err == nil {
			t.Errorf("ParseDueKey(%q) succeeded, want an error", bad)
		}
	}
}

// FuzzDueKeyOrder: byte order of due keys is the order of due times, and
// every key parses back.
func FuzzDueKeyOrder(f *testing.F) {
	f.Add("www.cnn.com", int64(1), int64(2), "com.cnn.www/")
	f.Add("[::1]:8080", int64(1)<<50, int64(1)<<51, "")
	f.Fuzz(func(t *testing.T, host string, a, b int64, key string) {
		u, err := urlkey.Canonical("http://" + host + "/")
		if err != nil || a < 0 || b < 0 {
			return
		}
		h := u.Host
		ta, tb := time.UnixMicro(a), time.UnixMicro(b)
		ka, kb := DueEntryKey(h, ta, key), DueEntryKey(h, tb, key)
		if (a < b) != (ka < kb) || (a == b) != (ka == kb) {
			t.Errorf("due times %d, %d of %s sort as %q, %q", a, b, h, ka, kb)
		}
		got, due, err := ParseDueKey(ka)
		if err != nil || got != h || due.UnixMicro() != a {
			t.Errorf("ParseDueKey(%q) = %q, %v, %v; want %q, %d", ka, got, due, err, h, a)
		}
	})
}

// TestTakeDue saves three pages due at three times and takes them as they
// come due: each TakeDue queues only the pages due by then (in the
// frontier, their due rows gone) and says when the next is due; the
// change history reads back with the fetch.
func TestTakeDue(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	cs := w.CrawlStore()
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	pages := []struct {
		url  string
		due  time.Duration
		rate float64
	}{{"http://a.test/1", time.Hour, 1e-3}, {"http://a.test/2", 2 * time.Hour, 0}, {"http://b.test/1", time.Hour, -1}}
	for _, p := range pages {
		key, _ := urlkey.Key(p.url)
		pg := &crawlstore.Page{URL: p.url, FinalURL: p.url, Key: key, Time: base, Status: 200, MediaType: "text/html",
			Body: []byte("x"), SHA256: crawlstore.SHA256Hex([]byte("x")),
			Change: crawlstore.Change{Visits: 2, Changes: 1, Span: time.Hour, Rate: p.rate, Due: base.Add(p.due)}}
		if _, err := cs.SavePage(ctx, pg); err != nil {
			t.Fatal(err)
		}
	}
	key, _ := urlkey.Key(pages[0].url)
	f, ok, err := cs.LastFetch(ctx, key)
	want := crawlstore.Change{Visits: 2, Changes: 1, Span: time.Hour, Rate: 1e-3, Due: base.Add(time.Hour)}
	if err != nil || !ok || f.Change != want {
		t.Fatalf("LastFetch(%s).Change = %+v (ok %v, %v), want %+v", key, f.Change, ok, err, want)
	}
	if c, err := w.DueCounts(ctx, base.Add(time.Hour)); err != nil || c != (DueCounts{Entries: 3, Now: 2, Day: 3}) {
		t.Errorf("DueCounts = %+v, %v; want 3 entries, 2 due now, 3 within a day", c, err)
	}
	if s, err := w.Stats(ctx, nil); err != nil || s.Rates.Unknown != 1 || s.Rates.Never != 1 || s.Rates.Decades[1] != 1 {
		t.Errorf("Stats.Rates = %+v, %v; want 1 unknown, 1 never, 1 at 10-100 a day (86.4)", s.Rates, err)
	}

	n, next, err := cs.TakeDue(ctx, 0, 0, base.Add(30*time.Minute), 100)
	if err != nil || n != 0 || !next.Equal(base.Add(time.Hour)) {
		t.Errorf("TakeDue before any is due = %d, next %v, %v; want 0, next %v", n, next, err, base.Add(time.Hour))
	}
	n, next, err = cs.TakeDue(ctx, 0, 0, base.Add(time.Hour), 100)
	if err != nil || n != 2 || !next.Equal(base.Add(2*time.Hour)) {
		t.Errorf("TakeDue at 1h = %d, next %v, %v; want 2, next %v", n, next, err, base.Add(2*time.Hour))
	}
	for _, host := range []string{"a.test", "b.test"} {
		b, err := cs.Next(ctx, host, "", 10)
		if err != nil || len(b.Entries) != 1 {
			t.Errorf("frontier of %s after TakeDue = %+v, %v; want one entry", host, b.Entries, err)
		}
	}
	if n, _, err := cs.TakeDue(ctx, 0, 0, base.Add(time.Hour), 100); err != nil || n != 0 {
		t.Errorf("TakeDue again at 1h = %d, %v; want 0 (the due rows were deleted)", n, err)
	}
	if n, next, err := cs.TakeDue(ctx, 0, 0, base.Add(3*time.Hour), 100); err != nil || n != 1 || !next.IsZero() {
		t.Errorf("TakeDue at 3h = %d, next %v, %v; want 1, none left", n, next, err)
	}
}

// FuzzParseDueKey: any string either is refused or is a key under the
// prefix of the host it names, with a due time that keys back the same.
func FuzzParseDueKey(f *testing.F) {
	f.Add(DueEntryKey("www.cnn.com", time.UnixMicro(12345), "com.cnn.www/"))
	f.Add("~due/000001/x/zz00000000000000000000000000000000")
	f.Add("~due/")
	f.Fuzz(func(t *testing.T, key string) {
		host, due, err := ParseDueKey(key)
		if err != nil {
			return
		}
		again := DueEntryKey(host, due, "")
		if key[:len(key)-16] != again[:len(again)-16] {
			t.Errorf("ParseDueKey(%q) = %q, %v: the key does not hold them", key, host, due)
		}
	})
}
