package webtable

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// TestImportOutOfOrder: captures arriving in any order make a version
// only where the content differs from its neighbour in time.
func TestImportOutOfOrder(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	steps := []struct {
		body string
		min  int
		want Stored
		then []string // versions after the step, "minute:body", oldest first
	}{
		{"A", 2, NewVersion, []string{"2:A"}},
		{"B", 4, NewVersion, []string{"2:A", "4:B"}},
		{"A", 1, NewVersion, []string{"1:A", "4:B"}}, // the same content was already there at 1: it moves back
		{"A", 3, Unchanged, []string{"1:A", "4:B"}},
		{"C", 3, NewVersion, []string{"1:A", "3:C", "4:B"}},
		{"B", 5, Unchanged, []string{"1:A", "3:C", "4:B"}},
	}
	for i, s := range steps {
		c := &Capture{URL: "http://www.cnn.com/", Time: at(s.min), Status: 200, MIME: "text/html",
			Header: []byte("HTTP/1.1 200 OK\r\n\r\n"), Body: []byte(s.body),
			Anchors: []Anchor{{URL: "http://cnnsi.com/", Text: "SI " + s.body}}}
		got, err := w.Import(ctx, c)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got != s.want {
			t.Errorf("step %d: Import(%s at %d) = %v, want %v", i, s.body, s.min, got, s.want)
		}
		var have []string
		err = w.Captures(ctx, nil, Selection{All: true}, func(c *Capture) error {
			have = append(have, fmt.Sprintf("%d:%s", int(c.Time.Sub(t0)/time.Minute), c.Body))
			if c.URL != "http://www.cnn.com/" || string(c.Header) != "HTTP/1.1 200 OK\r\n\r\n" || c.Status != 200 {
				t.Errorf("step %d: capture %+v lacks its url, header or status", i, c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(have, " ") != strings.Join(s.then, " ") {
			t.Errorf("step %d: versions %v, want %v", i, have, s.then)
		}
	}
	// The same captures in one batch, and with another page's captures
	// between them, end the same way.
	for _, size := range []int{len(steps), 2} {
		wb, _ := openTemp(t)
		var caps []*Capture
		var want []Stored
		for i, s := range steps {
			caps = append(caps, &Capture{URL: "http://www.cnn.com/", Time: at(s.min), Status: 200, Header: []byte("HTTP/1.1 200 OK\r\n\r\n"), Body: []byte(s.body)})
			want = append(want, s.want)
			if i == 2 {
				caps = append(caps, &Capture{URL: "http://cnnsi.com/", Time: at(9), Status: 200, Body: []byte("si")})
				want = append(want, NewVersion)
			}
		}
		var got []Stored
		for start := 0; start < len(caps); start += size {
			st, err := wb.importBatch(ctx, caps[start:min(start+size, len(caps))])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, st...)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("batches of %d: stored %v, want %v", size, got, want)
		}
		var have []string
		wb.Captures(ctx, []urlkey.Range{{Start: "com.cnn.www/", End: "com.cnn.www0"}}, Selection{All: true}, func(c *Capture) error {
			have = append(have, fmt.Sprintf("%d:%s", int(c.Time.Sub(t0)/time.Minute), c.Body))
			return nil
		})
		if want := steps[len(steps)-1].then; strings.Join(have, " ") != strings.Join(want, " ") {
			t.Errorf("batches of %d: versions %v, want %v", size, have, want)
		}
	}
	row, err := w.Get(ctx, "com.cnnsi/", Query{Family: FamilyAnchor})
	if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != "SI B" {
		t.Errorf("anchor in com.cnnsi/ = %v, %v; want the newest capture's text, SI B", row.Cells, err)
	}
	f, ok, err := w.LastFetch(ctx, "http://www.cnn.com/")
	if err != nil || !ok || !f.Time.Equal(at(5)) || f.State != crawlstore.StateDone {
		t.Errorf("fetch record = %+v, %v, %v; want the newest capture's, done", f, ok, err)
	}
	if st, _ := w.states(ctx, []string{"com.cnnsi/"}); st["com.cnnsi/"].state != crawlstore.StateNone {
		t.Errorf("an import queued a link target: state %q", st["com.cnnsi/"].state)
	}
}

// TestCaptures: the latest version, every one, or the one current at a
// time; a version stored before headers were kept has none.
func TestCaptures(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for i, b := range []string{"one", "two", "three"} {
		p := htmlPage("http://www.cnn.com/", t0.Add(time.Duration(i)*time.Minute), b)
		if i > 0 {
			p.Headers = []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nX-N: %d\r\n\r\n", i))
		}
		if _, err := w.RecordFetch(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		sel  Selection
		want string
	}{
		{"latest", Selection{}, "three"},
		{"all", Selection{All: true}, "one two three"},
		{"at the second", Selection{At: bigtable.Time(t0.Add(time.Minute + 30*time.Second))}, "two"},
		{"at the first, to the millisecond", Selection{At: bigtable.Time(t0)}, "one"},
		{"before any", Selection{At: bigtable.Time(t0.Add(-time.Millisecond))}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := w.Captures(ctx, nil, tc.sel, func(c *Capture) error {
				got = append(got, string(c.Body))
				if (string(c.Body) == "one") != (c.Header == nil) {
					t.Errorf("version %q has header %q; only the first was stored without one", c.Body, c.Header)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("Captures(%+v) = %q, want %q", tc.sel, got, tc.want)
			}
		})
	}
}

// TestImportRestoresLaterContent: a capture equal to the version before it
// is remembered, so that a different capture arriving between the two
// restores the earlier content after it, one by one or in one batch.
func TestImportRestoresLaterContent(t *testing.T) {
	ctx := context.Background()
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	steps := []struct {
		body string
		min  int
		want Stored
	}{
		{"A", 1, NewVersion},
		{"A", 3, Unchanged},
		{"A", 5, Unchanged},
		{"B", 2, NewVersion}, // A is back at 3
		{"C", 4, NewVersion}, // and again at 5
		{"A", 6, Unchanged},  // equal to the restored version at 5
		{"B", 0, NewVersion}, // before everything
		// Beside A at 3 (one instant: both kept, A first by sha256),
		// and equal to C at 4: that one goes.
		{"C", 3, NewVersion},
	}
	const want = "0:B 1:A 2:B 3:A 3:C 5:A"
	for _, size := range []int{1, len(steps)} {
		// Room for every version: collection is not what is tested.
		w := openDir(t, filepath.Join(t.TempDir(), "webtable.db"), true, Options{Versions: 10})
		t.Cleanup(func() { w.Close() })
		var got []Stored
		for start := 0; start < len(steps); start += size {
			var caps []*Capture
			for _, s := range steps[start:min(start+size, len(steps))] {
				caps = append(caps, &Capture{URL: "http://www.cnn.com/", Time: at(s.min), Status: 200,
					Header: []byte("HTTP/1.1 200 OK\r\nX-Body: " + s.body + "\r\n\r\n"), Body: []byte(s.body)})
			}
			st, err := w.importBatch(ctx, caps)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, st...)
		}
		for i, s := range steps {
			if got[i] != s.want {
				t.Errorf("batches of %d: step %d: Import(%s at %d) = %v, want %v", size, i, s.body, s.min, got[i], s.want)
			}
		}
		var have []string
		err := w.Captures(ctx, nil, Selection{All: true}, func(c *Capture) error {
			have = append(have, fmt.Sprintf("%d:%s", int(c.Time.Sub(t0)/time.Minute), c.Body))
			if c.URL != "http://www.cnn.com/" || c.Status != 200 || !strings.Contains(string(c.Header), "X-Body: "+string(c.Body)+"\r\n") {
				t.Errorf("batches of %d: restored capture %+v lacks its url, status or a header of its body", size, c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(have, " ") != want {
			t.Errorf("batches of %d: versions %v, want %v", size, have, want)
		}
	}
}
