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

// instantCapture is a capture of www.cnn.com at minute min after t0.
// Captures with one body differ by variant in their headers, charset and
// anchor texts.
type instantCapture struct {
	min     int
	body    string
	variant int
}

// sameInstant are captures of one page, several at one instant with
// different bodies, and one body twice at one instant with other headers;
// each links to a page of its own and to one that all link to. By sha256
// the bodies sort A (559a...) < C (6b23...) < B (df7e...).
var sameInstant = []instantCapture{
	{1, "A", 0}, {1, "B", 1}, {1, "C", 0}, {1, "B", 0}, // three bodies at one instant, B twice
	{0, "B", 0},              // before them
	{2, "C", 0}, {2, "A", 0}, // the instant ends with C...
	{3, "B", 0}, {3, "C", 0}, // ...so C here is a sighting, then B a version
}

// capture is c as Import takes it.
func (c instantCapture) capture() *Capture {
	v := fmt.Sprintf("%s v%d", c.body, c.variant)
	return &Capture{URL: "http://www.cnn.com/", Time: t0.Add(time.Duration(c.min) * time.Minute), Status: 200, MIME: "text/html",
		Charset: "x-" + v, Header: []byte("HTTP/1.1 200 OK\r\nX-Body: " + v + "\r\n\r\n"), Body: []byte(c.body),
		Anchors: []Anchor{
			{URL: "http://cnnsi.com/" + strings.ToLower(c.body), Text: "only " + v},
			{URL: "http://cnnsi.com/", Text: "shared, from " + v},
		}}
}

// instantModel is what the rule of Import gives for caps: the distinct
// (instant, body) entries in time and sha256 order, a version wherever the
// body differs from the entry before it, with the headers of its least
// variant; the fetch record (charset) of the least variant of the newest
// instant's greatest sha256; per anchor target, the greatest text of the
// newest instant that links to it.
func instantModel(caps []instantCapture) (versions []string, charset string, anchors map[string]string) {
	type entry struct {
		min       int
		sum, body string
		variant   int
	}
	var es []entry
	for _, c := range caps {
		i := slices.IndexFunc(es, func(e entry) bool { return e.min == c.min && e.body == c.body })
		if i < 0 {
			es = append(es, entry{c.min, sha256Hex([]byte(c.body)), c.body, c.variant})
		} else {
			es[i].variant = min(es[i].variant, c.variant)
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.min, b.min), cmp.Compare(a.sum, b.sum)) })
	prev := ""
	for _, e := range es {
		if e.body != prev {
			versions = append(versions, fmt.Sprintf("%d:%s v%d", e.min, e.body, e.variant))
		}
		prev = e.body
	}
	last := es[len(es)-1]
	charset = fmt.Sprintf("x-%s v%d", last.body, last.variant)
	anchors = map[string]string{}
	newest := map[string]int{}
	for _, c := range caps {
		for _, a := range c.capture().Anchors {
			m, ok := newest[a.URL]
			switch {
			case !ok || c.min > m:
				newest[a.URL], anchors[a.URL] = c.min, a.Text
			case c.min == m && a.Text > anchors[a.URL]:
				anchors[a.URL] = a.Text
			}
		}
	}
	return versions, charset, anchors
}

// TestImportSameInstant: captures of one page at one instant with
// different bodies are all kept, each its own version (or sighting) at a
// microsecond of that millisecond in sha256 order; whatever the order they
// arrive in, one by one or in batches, the versions, their headers, the
// fetch record and the anchors come out the same.
func TestImportSameInstant(t *testing.T) {
	versions, charset, anchors := instantModel(sameInstant)
	if want := "0:B v0 1:A v0 1:C v0 1:B v0 2:A v0 2:C v0 3:B v0"; strings.Join(versions, " ") != want {
		t.Fatalf("the model gives %v, want %s: has the test data changed?", versions, want)
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
			checkInstants(t, caps, size, versions, charset, anchors)
		})
	}
}

// TestImportSameInstantRandom: random captures, many sharing instants,
// some with equal bodies and other headers, in random orders and batches,
// give what the model of the rule says.
func TestImportSameInstantRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	for run := range 12 {
		caps := make([]instantCapture, 4+rng.IntN(8))
		for i := range caps {
			caps[i] = instantCapture{rng.IntN(4), string(rune('A' + rng.IntN(4))), rng.IntN(3)}
		}
		size := 1 + rng.IntN(len(caps))
		versions, charset, anchors := instantModel(caps)
		t.Run(fmt.Sprintf("%d: %v in batches of %d", run, caps, size), func(t *testing.T) {
			checkInstants(t, caps, size, versions, charset, anchors)
		})
	}
}

// checkInstants imports caps, in that order and in batches of size, into
// a new store and checks its versions with their headers, the fetch
// record and the anchors.
func checkInstants(t *testing.T, caps []instantCapture, size int, wantVersions []string, wantCharset string, wantAnchors map[string]string) {
	t.Helper()
	ctx := context.Background()
	newest := 0
	for _, c := range caps {
		newest = max(newest, c.min)
	}
	// Room for every version: collection is not what is tested.
	w := openDir(t, filepath.Join(t.TempDir(), "webtable.db"), true, Options{Versions: 20})
	t.Cleanup(func() { w.Close() })
	var all []*Capture
	for _, c := range caps {
		all = append(all, c.capture())
	}
	for start := 0; start < len(all); start += size {
		if _, err := w.importBatch(ctx, all[start:min(start+size, len(all))]); err != nil {
			t.Fatal(err)
		}
	}
	var have []string
	err := w.Captures(ctx, nil, Selection{All: true}, func(c *Capture) error {
		_, v, _ := strings.Cut(string(c.Header), "X-Body: ")
		v, _, _ = strings.Cut(v, "\r\n")
		have = append(have, fmt.Sprintf("%d:%s", int(c.Time.Sub(t0)/time.Minute), v))
		if c.Time.Sub(t0)%time.Minute != 0 || c.URL != "http://www.cnn.com/" || !strings.HasPrefix(v, string(c.Body)+" ") {
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
	if err != nil || !ok || !f.Time.Equal(t0.Add(time.Duration(newest)*time.Minute)) || f.Charset != wantCharset {
		t.Errorf("fetch record %+v, %v, %v; want the newest instant's, charset %s", f, ok, err, wantCharset)
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
