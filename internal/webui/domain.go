package webui

import (
	"context"
	"net/http"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// domainData is a domain: where it sits in the tree, its subdomains, and a
// page of its rows in key order.
type domainData struct {
	Name      string // "" for the root of the tree
	Key       string
	Parents   []treeEntry // from the top down, without the domain itself
	Children  []treeEntry
	Summary   summaryView
	Rows      []rowEntry
	Next      string // cursor of the next page, "" at the end
	After     string // this page's cursor
	Unindexed bool   // no summary yet, or the domain is not in it
}

// rowEntry is a row of a list: its key, URL and fetch record.
type rowEntry struct {
	Key   string
	URL   string
	Fetch crawlstore.Fetch
}

// jsonDomain is a node of the domain tree (documented in doc.go).
type jsonDomain struct {
	Name     string   `json:"name"`
	Key      string   `json:"key"`
	Rows     int64    `json:"rows"`
	Children []string `json:"children,omitempty"`
}

func toJSONDomain(n *node) jsonDomain {
	j := jsonDomain{Name: n.Name, Key: n.Key, Rows: n.Rows}
	for _, c := range n.Children {
		j.Children = append(j.Children, forward(c))
	}
	return j
}

// jsonDomainView is the JSON of a domain's view (documented in doc.go).
type jsonDomainView struct {
	Domain     string       `json:"domain"`
	Summary    jsonSummary  `json:"summary"`
	Subdomains []jsonDomain `json:"subdomains"`
	Rows       []jsonRow    `json:"rows"`
	Next       string       `json:"next,omitempty"`
}

func (ui *UI) domain(r *http.Request) (result, error) {
	q := r.URL.Query()
	name, after := q.Get("name"), q.Get("after")
	sv, s := ui.summaryView()
	d := domainData{Name: name, After: after, Summary: sv}
	j := jsonDomainView{Domain: name, Subdomains: []jsonDomain{}, Rows: []jsonRow{}, Summary: jsonSummary{Ready: sv.Ready, Building: sv.Building, AgeSeconds: sv.Age.Seconds(), Partial: sv.Partial}}
	if s != nil {
		j.Summary.Built = s.Built.UTC().Format(time.RFC3339Nano)
	}
	var ranges []urlkey.Range
	if name != "" {
		ranges = urlkey.DomainRanges(name)
		if len(ranges) == 0 {
			return result{}, badRequest("%q is not a domain name (want one such as cnn.com)", name)
		}
		d.Key = ranges[0].Start[:len(ranges[0].Start)-1]
		if isIP(hostOfKey(ranges[0].Start)) {
			d.Key = hostOfKey(ranges[0].Start)
		}
	}
	n := (*node)(nil)
	if s != nil {
		n = s.Tree[d.Key]
	}
	if n == nil {
		d.Unindexed = true
	} else {
		for _, c := range n.Children {
			d.Children = append(d.Children, entry(s, c, 0))
			j.Subdomains = append(j.Subdomains, toJSONDomain(s.Tree[c]))
		}
		for k := parentKey(d.Key); k != ""; k = parentKey(k) {
			if p := s.Tree[k]; p != nil {
				d.Parents = append([]treeEntry{{Name: p.Name, Key: p.Key, Rows: p.Rows}}, d.Parents...)
			}
		}
	}
	if name != "" {
		rows, next, err := ui.rowsPage(r.Context(), ranges, after, ui.opts.PageSize)
		if err != nil {
			return result{}, err
		}
		d.Next = next
		j.Next = next
		for _, row := range rows {
			e := rowEntry{Key: row.Key}
			f, err := webtable.FetchOf(row)
			if err != nil {
				return result{}, err
			}
			e.Fetch, e.URL = f, urlOf(row.Key, f)
			d.Rows = append(d.Rows, e)
			j.Rows = append(j.Rows, toJSONRow(row))
		}
	}
	title := "domains"
	if name != "" {
		title = name
	}
	return result{page: "domain", title: title, data: d, json: j}, nil
}

// parentKey is the reversed name of a domain's parent: com.cnn.www ->
// com.cnn; com -> "".
func parentKey(k string) string {
	if isIP(k) {
		return ""
	}
	for i := len(k) - 1; i >= 0; i-- {
		if k[i] == '.' {
			return k[:i]
		}
	}
	return ""
}

// urlOf is the URL of a row: the URL of its fetch record, else the key read as http.
func urlOf(key string, f crawlstore.Fetch) string {
	if f.URL != "" {
		return f.URL
	}
	if u, err := urlkey.URL(key, "http"); err == nil {
		return u
	}
	return ""
}

// rowsPage reads up to n rows of ranges after the key after, in key
// order, with their fetch family, and the cursor of the next page ("" when
// there is none). It reads keys first, then the fetch cells of just those
// rows, so a page never reads a stored body.
func (ui *UI) rowsPage(ctx context.Context, ranges []urlkey.Range, after string, n int) ([]webtable.Row, string, error) {
	rs := clip(ranges, after)
	if len(ranges) > 0 && len(rs) == 0 {
		return nil, "", nil // the cursor is past every range
	}
	var keys []string
	err := ui.w.Scan(ctx, rs, webtable.Query{KeysOnly: true}, int64(n+1), func(r webtable.Row) bool {
		keys = append(keys, r.Key)
		return true
	})
	if err != nil || len(keys) == 0 {
		return nil, "", err
	}
	next := ""
	if len(keys) > n {
		keys = keys[:n]
		next = keys[n-1]
	}
	fetch := map[string]webtable.Row{}
	span := []urlkey.Range{{Start: keys[0], End: keys[len(keys)-1] + "\x00"}}
	err = ui.w.Scan(ctx, span, webtable.Query{Family: webtable.FamilyFetch}, 0, func(r webtable.Row) bool {
		fetch[r.Key] = r
		return true
	})
	if err != nil {
		return nil, "", err
	}
	rows := make([]webtable.Row, len(keys))
	for i, k := range keys {
		rows[i] = fetch[k]
		rows[i].Key = k
	}
	return rows, next, nil
}

// clip keeps the parts of ranges (nil: the whole table) after the key
// after ("" keeps all).
func clip(ranges []urlkey.Range, after string) []urlkey.Range {
	if after == "" {
		return ranges
	}
	if len(ranges) == 0 {
		ranges = []urlkey.Range{{}}
	}
	from := after + "\x00"
	var out []urlkey.Range
	for _, r := range ranges {
		if r.End != "" && r.End <= from {
			continue
		}
		if r.Start < from {
			r.Start = from
		}
		out = append(out, r)
	}
	return out
}
