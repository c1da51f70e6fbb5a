package webtable

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/urlkey"
)

// sameInstant are captures of one page, several at one instant with
// different bodies, and one exact duplicate; each links to a page of its
// own and to one that all link to. Minutes after t0. By sha256 the bodies
// sort A (559a...) < C (6b23...) < B (df7e...).
var sameInstant = []instantCapture{
	{1, "A"}, {1, "B"}, {1, "C"}, {1, "B"}, // three bodies at one instant, B twice
	{0, "B"},           // before them
	{2, "C"}, {2, "A"}, // the instant ends with C...
	{3, "B"}, {3, "C"}, // ...so C here is a sighting, then B a version
}

// instantCapture is a capture of www.cnn.com at minute min after t0.
type instantCapture struct {
	min  int
	body string
}

// sameInstantModel is what the rule of Import gives: the distinct
// (instant, body) entries in time and sha256 order, a version wherever the
// body differs from the entry before it; the fetch record of the newest
// instant's greatest sha256; per anchor target, the greatest text of the
// newest instant that links to it.
func sameInstantModel() (versions []string, fetchBody string, anchors map[string]string) {
	return instantModel(sameInstant)
}

// instantModel is sameInstantModel for any captures.
func instantModel(caps []instantCapture) (versions []string, fetchBody string, anchors map[string]string) {
	type entry struct {
		min       int
		sum, body string
	}
	var es []entry
	for _, c := range caps {
		e := entry{c.min, sha256Hex([]byte(c.body)), c.body}
		if !slices.Contains(es, e) {
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.min, b.min), cmp.Compare(a.sum, b.sum)) })
	prev := ""
	for _, e := range es {
		if e.body != prev {
			versions = append(versions, fmt.Sprintf("%d:%s", e.min, e.body))
		}
		prev = e.body
	}
	fetchBody = es[len(es)-1].body
	anchors = map[string]string{}
	newest := map[string]int{}
	for _, c := range caps {
		for _, a := range instantAnchors(c.body) {
			m, ok := newest[a.URL]
			switch {
			case !ok || c.min > m:
				newest[a.URL], anchors[a.URL] = c.min, a.Text
			case c.min == m && a.Text > anchors[a.URL]:
				anchors[a.URL] = a.Text
			}
		}
	}
	return versions, fetchBody, anchors
}

// instantAnchors are the links of a body: one of its own, one shared.
func instantAnchors(body string) []Anchor {
	return []Anchor{
		{URL: "http://cnnsi.com/" + strings.ToLower(body), Text: "only " + body},
		{URL: "http://cnnsi.com/", Text: "shared, from " + body},
	}
}

// TestImportSameInstant: captures of one page at one instant with
// different bodies are all kept, each its own version (or sighting) at a
// microsecond of that millisecond in sha256 order; whatever the order they
// arrive in, one by one or in batches, the versions, their headers, the
// fetch record and the anchors come out the same.
func TestImportSameInstant(t *testing.T) {
	wantVersions, wantFetch, wantAnchors := sameInstantModel()
	if want := "0:B 1:A 1:C 1:B 2:A 2:C 3:B"; strings.Join(wantVersions, " ") != want {
		t.Fatalf("the model gives %v, want %s: has the test data changed?", wantVersions, want)
	}
	rng := rand.New(rand.NewPCG(14, 1))
	for run := range 8 {
		order := rng.Perm(len(sameInstant))
		size := []int{1, len(sameInstant), 3}[run%3]
		caps := make([]instantCapture, len(order))
		for i, k := range order {
			caps[i] = sameInstant[k]
		}
		t.Run(fmt.Sprintf("order %v in batches of %d", order, size), func(t *testing.T) {
			checkInstants(t, caps, size, wantVersions, wantFetch, wantAnchors)
		})
	}
}

// TestImportSameInstantRandom: random captures, many sharing instants,
// in random orders and batches, give what the model of the rule says.
func TestImportSameInstantRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	for run := range 12 {
		caps := make([]instantCapture, 4+rng.IntN(8))
		for i := range caps {
			caps[i] = instantCapture{rng.IntN(4), string(rune('A' + rng.IntN(4)))}
		}
		size := 1 + rng.IntN(len(caps))
		versions, fetch, anchors := instantModel(caps)
		t.Run(fmt.Sprintf("%d: %v in batches of %d", run, caps, size), func(t *testing.T) {
			checkInstants(t, caps, size, versions, fetch, anchors)
		})
	}
}

// checkInstants imports caps, in that order and in batches of size, into
// a new store and checks its versions, fetch record and anchors.
func checkInstants(t *testing.T, caps []instantCapture, size int, wantVersions []string, wantFetch string, wantAnchors map[string]string) {
	t.Helper()
	ctx := context.Background()
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	newest := 0
	for _, c := range caps {
		newest = max(newest, c.min)
	}
	// Room for every version: collection is not what is tested.
	w := openDir(t, filepath.Join(t.TempDir(), "webtable.db"), true, Options{Versions: 20})
	t.Cleanup(func() { w.Close() })
	var all []*Capture
	for _, s := range caps {
		all = append(all, &Capture{URL: "http://www.cnn.com/", Time: at(s.min), Status: 200, MIME: "text/html", Charset: "x-" + s.body,
			Header: []byte("HTTP/1.1 200 OK\r\nX-Body: " + s.body + "\r\n\r\n"), Body: []byte(s.body), Anchors: instantAnchors(s.body)})
	}
	for start := 0; start < len(all); start += size {
		if _, err := w.importBatch(ctx, all[start:min(start+size, len(all))]); err != nil {
			t.Fatal(err)
		}
	}
	var have []string
	err := w.Captures(ctx, nil, Selection{All: true}, func(c *Capture) error {
		have = append(have, fmt.Sprintf("%d:%s", int(c.Time.Sub(t0)/time.Minute), c.Body))
		if c.Time.Sub(t0)%time.Minute != 0 || c.URL != "http://www.cnn.com/" || !strings.Contains(string(c.Header), "X-Body: "+string(c.Body)+"\r\n") {
			t.Errorf("capture %s at %s: %q, url %s; want the capture's own minute, url and header", c.Body, c.Time, c.Header, c.URL)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(have, " ") != strings.Join(wantVersions, " ") {
		t.Errorf("versions %v, want %v", have, wantVersions)
	}
	vs, err := w.Versions(ctx, "com.cnn.www/")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(vs); i++ {
		if vs[i].Timestamp >= vs[i-1].Timestamp {
			t.Errorf("versions %d and %d share timestamp %d", i-1, i, vs[i].Timestamp)
		}
	}
	f, ok, err := w.LastFetch(ctx, "http://www.cnn.com/")
	if err != nil || !ok || !f.Time.Equal(at(newest)) || f.Charset != "x-"+wantFetch {
		t.Errorf("fetch record %+v, %v, %v; want the newest instant's greatest sha256's (%s)", f, ok, err, wantFetch)
	}
	for target, text := range wantAnchors {
		row, err := w.Get(ctx, mustKey(t, target), Query{Family: FamilyAnchor})
		if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != text {
			t.Errorf("anchor in %s = %v, %v; want %q", target, row.Cells, err, text)
		}
	}
}

func mustKey(t *testing.T, rawURL string) string {
	t.Helper()
	k, err := urlkey.Key(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
