package webui

import (
	"net/http"
	"strings"

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

func (ui *UI) diff(r *http.Request) (result, error) {
	key, err := rowParam(r)
	if err != nil {
		return result{}, err
	}
	ta, err := tsParam(r, "a")
	if err != nil {
		return result{}, err
	}
	tb, err := tsParam(r, "b")
	if err != nil {
		return result{}, err
	}
	if ta == 0 || tb == 0 {
		return result{}, badRequest("name the two versions with a=MICROSECONDS and b=MICROSECONDS (see the versions list)")
	}
	ctx := r.Context()
	vs, err := ui.w.Versions(ctx, key)
	if err != nil {
		return result{}, err
	}
	row, err := ui.w.Get(ctx, key, webtable.Query{Column: webtable.FamilyContents + ":html", Versions: -1})
	if err != nil {
		return result{}, err
	}
	fr, err := ui.w.Get(ctx, key, webtable.Query{Family: webtable.FamilyFetch})
	if err != nil {
		return result{}, err
	}
	f, err := webtable.FetchOf(fr)
	if err != nil {
		return result{}, err
	}
	mt, err := ui.w.Get(ctx, key, webtable.Query{Column: webtable.FamilyMIME + ":type"})
	if err != nil {
		return result{}, err
	}
	media := ""
	if len(mt.Cells) > 0 {
		media = string(mt.Cells[0].Value)
	}
	d := diffData{Key: key, URL: urlOf(key, f)}
	for _, v := range vs {
		d.Versions = append(d.Versions, versionEntry{Version: v, Time: v.Timestamp.Time().UTC()})
	}
	text := func(ts int64) ([]string, versionEntry, error) {
		for _, v := range d.Versions {
			if int64(v.Timestamp) != ts {
				continue
			}
			for _, c := range row.Cells {
				if int64(c.Timestamp) == ts {
					var s string
					var cut bool
					if isHTML(media) {
						s, cut = extract.Text(c.Value, contentType(media, f.Charset), maxDiffText)
					} else {
						s, cut = plainText(c.Value, maxDiffText)
					}
					d.Truncated = d.Truncated || cut
					return strings.Split(strings.TrimSuffix(s, "\n"), "\n"), v, nil
				}
			}
		}
		return nil, versionEntry{}, notFound("row %q has no version at %d", key, ts)
	}
	la, va, err := text(ta)
	if err != nil {
		return result{}, err
	}
	lb, vb, err := text(tb)
	if err != nil {
		return result{}, err
	}
	d.A, d.B = va, vb
	ops, exact := diffLines(la, lb)
	d.Exact = exact
	d.Hunks = hunks(ops, diffContext)
	d.Same = len(d.Hunks) == 0
	j := jsonDiff{Row: key, A: toJSONVersion(va.Version), B: toJSONVersion(vb.Version), Truncated: d.Truncated, Exact: exact, Hunks: [][]jsonOp{}}
	for _, h := range d.Hunks {
		var ops []jsonOp
		for _, o := range h.Ops {
			ops = append(ops, jsonOp{Op: string(o.Kind), A: o.A, B: o.B, Text: o.Text})
		}
		j.Hunks = append(j.Hunks, ops)
	}
	return result{page: "diff", title: "changes of " + d.URL, data: d, json: j}, nil
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
