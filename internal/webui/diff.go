package webui

import (
	"context"
	"net/http"
	"strings"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/webtable"
)

// maxDiffText bounds the text taken from each version for a diff, in bytes.
const maxDiffText = 256 << 10

// diffContext is how many unchanged lines a diff shows around a change.
const diffContext = 3

// diffData is the diff between two versions of a page's text.
type diffData struct {
	Key, URL  string
	A, B      versionEntry
	Hunks     []hunk
	Same      bool // the texts are equal (the HTML may still differ)
	Truncated bool // a text was cut at maxDiffText
	Exact     bool // false: too many changes, part shown replaced whole
	Versions  []versionEntry
}

// jsonDiff is the JSON of a diff (documented in doc.go).
type jsonDiff struct {
	Row       string      `json:"row"`
	A         jsonVersion `json:"a"`
	B         jsonVersion `json:"b"`
	Truncated bool        `json:"truncated"`
	Exact     bool        `json:"exact"`
	Hunks     [][]jsonOp  `json:"hunks"`
}

type jsonOp struct {
	Op   string `json:"op"` // " ", "-" or "+"
	A    int    `json:"a,omitempty"`
	B    int    `json:"b,omitempty"`
	Text string `json:"text"`
}

// diff is the diff between the texts of two versions of a page (row=KEY
// or url=URL), named by their timestamps a and b in microseconds.
func (ui *UI) diff(r *http.Request) (result, error) {
	key, ta, tb, err := diffParams(r)
	if err != nil {
		return result{}, err
	}
	src, err := ui.diffSource(r.Context(), key)
	if err != nil {
		return result{}, err
	}
	d := diffData{Key: key, URL: urlOf(key, src.fetch)}
	for _, v := range src.versions {
		d.Versions = append(d.Versions, versionEntry{Version: v, Time: v.Timestamp.Time().UTC()})
	}
	la, va, err := d.text(src, ta)
	if err != nil {
		return result{}, err
	}
	lb, vb, err := d.text(src, tb)
	if err != nil {
		return result{}, err
	}
	d.A, d.B = va, vb
	ops, exact := diffLines(la, lb)
	d.Exact = exact
	d.Hunks = hunks(ops, diffContext)
	d.Same = len(d.Hunks) == 0
	return result{page: "diff", title: "changes of " + d.URL, data: d, json: d.json()}, nil
}

// diffParams reads the page a diff request names and the timestamps of
// its two versions, a and b, both required.
func diffParams(r *http.Request) (key string, ta, tb int64, err error) {
	if key, err = rowParam(r); err != nil {
		return "", 0, 0, err
	}
	if ta, err = tsParam(r, "a"); err != nil {
		return "", 0, 0, err
	}
	if tb, err = tsParam(r, "b"); err != nil {
		return "", 0, 0, err
	}
	if ta == 0 || tb == 0 {
		return "", 0, 0, badRequest("name the two versions with a=MICROSECONDS and b=MICROSECONDS (see the versions list)")
	}
	return key, ta, tb, nil
}

// diffSource is what a diff reads of a row: its stored versions, every
// contents:html cell, the fetch record and the media type ("" unknown).
type diffSource struct {
	versions []webtable.Version
	html     webtable.Row
	fetch    crawlstore.Fetch
	media    string
}

// diffSource reads the diffSource of row key.
func (ui *UI) diffSource(ctx context.Context, key string) (diffSource, error) {
	var src diffSource
	var err error
	if src.versions, err = ui.w.Versions(ctx, key); err != nil {
		return src, err
	}
	if src.html, err = ui.w.Get(ctx, key, webtable.Query{Column: webtable.FamilyContents + ":html", Versions: -1}); err != nil {
		return src, err
	}
	fr, err := ui.w.Get(ctx, key, webtable.Query{Family: webtable.FamilyFetch})
	if err != nil {
		return src, err
	}
	if src.fetch, err = webtable.FetchOf(fr); err != nil {
		return src, err
	}
	mt, err := ui.w.Get(ctx, key, webtable.Query{Column: webtable.FamilyMIME + ":type"})
	if err != nil {
		return src, err
	}
	if len(mt.Cells) > 0 {
		src.media = string(mt.Cells[0].Value)
	}
	return src, nil
}

// text is the version of d at ts, and its text as lines (HTML as the
// text a reader sees, anything else as it is), at most maxDiffText bytes:
// a cut sets d.Truncated. A ts no version has is not found.
func (d *diffData) text(src diffSource, ts int64) ([]string, versionEntry, error) {
	for _, v := range d.Versions {
		if int64(v.Timestamp) != ts {
			continue
		}
		for _, c := range src.html.Cells {
			if int64(c.Timestamp) == ts {
				var s string
				var cut bool
				if isHTML(src.media) {
					s, cut = extract.Text(c.Value, contentType(src.media, src.fetch.Charset), maxDiffText)
				} else {
					s, cut = plainText(c.Value, maxDiffText)
				}
				d.Truncated = d.Truncated || cut
				return strings.Split(strings.TrimSuffix(s, "\n"), "\n"), v, nil
			}
		}
	}
	return nil, versionEntry{}, notFound("row %q has no version at %d", d.Key, ts)
}

// json is the JSON of d.
func (d *diffData) json() jsonDiff {
	j := jsonDiff{Row: d.Key, A: toJSONVersion(d.A.Version), B: toJSONVersion(d.B.Version), Truncated: d.Truncated, Exact: d.Exact, Hunks: [][]jsonOp{}}
	for _, h := range d.Hunks {
		var ops []jsonOp
		for _, o := range h.Ops {
			ops = append(ops, jsonOp{Op: string(o.Kind), A: o.A, B: o.B, Text: o.Text})
		}
		j.Hunks = append(j.Hunks, ops)
	}
	return j
}

// plainText is a non-HTML body as lines of valid UTF-8, at most max bytes
// cut at a line end.
func plainText(b []byte, max int) (string, bool) {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) <= max {
		return s, false
	}
	s = s[:max]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return strings.ToValidUTF8(s, ""), true
}
