package webui

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// maxShownLinks bounds the outgoing links a page view lists.
const maxShownLinks = 1000

// anchorsPerPage is how many incoming anchors a page view reads and lists
// at once; anchors=REFERRER shows those after it.
const anchorsPerPage = 500

// pageData is the view of one page.
type pageData struct {
	Key      string
	URL      string
	MIME     string
	Fetch    crawlstore.Fetch
	Cells    []cellEntry // the fetch family, latest versions
	Versions []versionEntry
	Shown    *versionEntry // the version in the frame; nil when none is stored
	Anchors  []anchorEntry
	After    string // the referrer the anchors listed start after ("" from the first)
	Next     string // the referrer to start the next page of anchors after; "" at the end
	Links    []linkEntry
	More     int // outgoing links not listed
	Diff     diffChoice
	Derived  *derivedView // what cmd/index derived; nil when nothing
	// Screenshot is the time of the newest screenshot:png (crawl
	// --screenshots), µs; 0 when none.
	Screenshot int64
}

// cellEntry is a cell of the fetch family as the page view shows it: a
// fetch:record (one JSON object) as its fields, one per line; any other
// cell, or a record that does not split, as its value.
type cellEntry struct {
	webtable.Cell
	Fields []webtable.RecordField
}

// newCellEntry is c as the page view shows it.
func newCellEntry(c webtable.Cell) cellEntry {
	e := cellEntry{Cell: c}
	if c.Column() == webtable.FetchRecordColumn {
		e.Fields, _ = webtable.RecordFields(c.Value)
	}
	return e
}

// versionEntry is a stored version and its neighbours for the diff links.
type versionEntry struct {
	webtable.Version
	Time  time.Time
	Older int64 // timestamp of the next older version, 0 if none
}

// diffChoice pre-selects the two newest versions in the compare form.
type diffChoice struct{ A, B int64 }

// anchorEntry is a link from another page to this one.
type anchorEntry struct {
	Referrer string // the referring page, urlkey.Referrer form (cnnsi.com)
	Row      string // its row key, "" when it cannot be derived
	Text     string
}

// linkEntry is a link of the page to another.
type linkEntry struct {
	URL      string
	Row      string
	Text     string
	NoFollow bool
}

// jsonPage is the JSON of a page's view (documented in doc.go).
type jsonPage struct {
	Row      jsonRow       `json:"row"`
	URL      string        `json:"url"`
	MIME     string        `json:"mime"`
	Versions []jsonVersion `json:"versions"`
	Anchors  []jsonAnchor  `json:"anchors"`
	Next     string        `json:"anchors_next,omitempty"`
	Links    []jsonLink    `json:"links"`
}

type jsonAnchor struct {
	Referrer string `json:"referrer"`
	Row      string `json:"row,omitempty"`
	Text     string `json:"text"`
}

type jsonLink struct {
	URL      string `json:"url"`
	Row      string `json:"row"`
	Text     string `json:"text"`
	NoFollow bool   `json:"nofollow,omitempty"`
}

// rowParam reads the page a request names: row=KEY, or url=URL.
func rowParam(r *http.Request) (string, error) {
	q := r.URL.Query()
	if k := q.Get("row"); k != "" {
		if len(k) > webtable.MaxKeyLen {
			return "", badRequest("row key of %d bytes: at most %d", len(k), webtable.MaxKeyLen)
		}
		return k, nil
	}
	if u := q.Get("url"); u != "" {
		k, err := urlkey.Key(u)
		if err != nil {
			return "", badRequest("url %q: %v", u, err)
		}
		return k, nil
	}
	return "", badRequest("name a page with row=KEY (com.cnn.www/) or url=URL (http://www.cnn.com/)")
}

// tsParam reads a version's timestamp (microseconds) from parameter name;
// 0 when absent.
func tsParam(r *http.Request, name string) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, badRequest("%s=%q: want a version's timestamp in microseconds (see the versions list)", name, s)
	}
	return n, nil
}

// page is the view of one page (row=KEY or url=URL): its fetch cells, its
// stored versions with one shown (v=MICROSECONDS, else the newest) and its
// links, and the anchors of other pages to it (anchors=REFERRER, a page
// of them at a time).
func (ui *UI) page(r *http.Request) (result, error) {
	key, err := rowParam(r)
	if err != nil {
		return result{}, err
	}
	want, err := tsParam(r, "v")
	if err != nil {
		return result{}, err
	}
	ctx := r.Context()
	// NB: the anchors a page at a time: a row may be linked from millions
	// of pages.
	row, err := ui.w.Get(ctx, key, webtable.Query{SkipAnchors: true})
	if err != nil {
		return result{}, err
	}
	after := r.URL.Query().Get("anchors")
	anchors, next, err := ui.w.Anchors(ctx, key, after, anchorsPerPage)
	if err != nil {
		return result{}, err
	}
	if len(row.Cells) == 0 && len(anchors) == 0 && after == "" {
		return result{}, notFound("no row %q in the table", key)
	}
	vs, err := ui.w.Versions(ctx, key)
	if err != nil {
		return result{}, err
	}
	f, err := webtable.FetchOf(row)
	if err != nil {
		return result{}, err
	}
	d := pageData{Key: key, URL: urlOf(key, f), Fetch: f, After: after, Next: next, Derived: derivedOf(row)}
	if d.Derived != nil && d.Derived.Of != "" {
		if err := ui.dupMembers(ctx, d.Derived, key); err != nil {
			return result{}, err
		}
	}
	j := jsonPage{Row: toJSONRow(row), Versions: []jsonVersion{}, Anchors: []jsonAnchor{}, Links: []jsonLink{}, Next: next}
	d.addCells(row)
	addAnchors(&d, &j, anchors)
	addVersions(&d, &j, vs)
	if err := ui.showVersion(ctx, &d, want, f.Charset); err != nil {
		return result{}, err
	}
	j.MIME, j.URL = d.MIME, d.URL
	for _, l := range d.Links {
		j.Links = append(j.Links, jsonLink{l.URL, l.Row, l.Text, l.NoFollow})
	}
	return result{page: "page", title: d.URL, data: d, json: j}, nil
}

// addCells takes from row its fetch cells, media type and the time of its
// newest screenshot.
func (d *pageData) addCells(row webtable.Row) {
	for _, c := range row.Cells {
		switch c.Family {
		case webtable.FamilyFetch:
			d.Cells = append(d.Cells, newCellEntry(c))
		case webtable.FamilyMIME:
			d.MIME = string(c.Value)
		case webtable.FamilyScreenshot:
			d.Screenshot = max(d.Screenshot, int64(c.Timestamp))
		}
	}
}

// addAnchors lists the anchor cells in the view and its JSON, each with
// its referrer's row when one can be derived.
func addAnchors(d *pageData, j *jsonPage, anchors []webtable.Cell) {
	for _, c := range anchors {
		a := anchorEntry{Referrer: c.Qualifier, Text: string(c.Value)}
		if k, err := urlkey.Key("http://" + c.Qualifier); err == nil {
			a.Row = k
		}
		d.Anchors = append(d.Anchors, a)
		j.Anchors = append(j.Anchors, jsonAnchor{a.Referrer, a.Row, a.Text})
	}
}

// addVersions lists the stored versions vs (newest first) in the view and
// its JSON, and pre-selects the two newest for a diff.
func addVersions(d *pageData, j *jsonPage, vs []webtable.Version) {
	for i, v := range vs {
		e := versionEntry{Version: v, Time: v.Timestamp.Time().UTC()}
		if i+1 < len(vs) {
			e.Older = int64(vs[i+1].Timestamp)
		}
		d.Versions = append(d.Versions, e)
		j.Versions = append(j.Versions, toJSONVersion(v))
	}
	if len(d.Versions) > 1 {
		d.Diff = diffChoice{A: int64(vs[1].Timestamp), B: int64(vs[0].Timestamp)}
	}
}

// showVersion picks the version the view shows, the one at want (µs) or
// the newest when want is 0, and lists the links of its body when it is
// HTML (charset from the fetch record). A view without versions shows
// none; a want no version has is not found.
func (ui *UI) showVersion(ctx context.Context, d *pageData, want int64, charset string) error {
	if len(d.Versions) == 0 {
		return nil
	}
	d.Shown = &d.Versions[0]
	if want != 0 {
		i := slices.IndexFunc(d.Versions, func(e versionEntry) bool { return int64(e.Timestamp) == want })
		if i < 0 {
			return notFound("row %q has no version at %d", d.Key, want)
		}
		d.Shown = &d.Versions[i]
	}
	body, err := ui.version(ctx, d.Key, int64(d.Shown.Timestamp))
	if err != nil {
		return err
	}
	if isHTML(d.MIME) {
		d.Links, d.More = outLinks(body, contentType(d.MIME, charset), d.URL)
	}
	return nil
}

// version reads the contents:html version of row key stored at ts; nil when
// there is none.
func (ui *UI) version(ctx context.Context, key string, ts int64) ([]byte, error) {
	row, err := ui.w.Get(ctx, key, webtable.Query{Column: webtable.FamilyContents + ":html", Versions: -1})
	if err != nil {
		return nil, err
	}
	for _, c := range row.Cells {
		if int64(c.Timestamp) == ts {
			return c.Value, nil
		}
	}
	return nil, nil
}

// isHTML reports whether a stored media type is HTML (or unknown, as a
// page stored before its type was recorded).
func isHTML(mt string) bool {
	return mt == "" || mt == "text/html" || mt == "application/xhtml+xml"
}

// contentType rebuilds a Content-Type for decoding a stored body.
func contentType(mt, charset string) string {
	if mt == "" {
		mt = "text/html"
	}
	if charset != "" && isToken(charset) {
		return mt + "; charset=" + charset
	}
	return mt
}

// outLinks extracts the links of a stored page and resolves them against
// its URL (or its <base>), keeping http and https links once each, in
// document order, at most maxShownLinks of them; more is how many were left
// out.
func outLinks(body []byte, ctype, pageURL string) (links []linkEntry, more int) {
	base, err := url.Parse(pageURL)
	if err != nil || pageURL == "" {
		return nil, 0
	}
	ex := extract.Extract(body, ctype)
	base = urlkey.LinkBase(base, ex.Base)
	seen := map[string]bool{}
	for _, l := range ex.Links {
		cu, ok := urlkey.Resolve(base, l.Href)
		if !ok {
			continue
		}
		s := cu.String()
		if seen[s] {
			continue
		}
		seen[s] = true
		if len(links) >= maxShownLinks {
			more++
			continue
		}
		links = append(links, linkEntry{URL: s, Row: urlkey.KeyOf(cu), Text: l.Text, NoFollow: l.NoFollow || ex.MetaNoFollow})
	}
	return links, more
}
