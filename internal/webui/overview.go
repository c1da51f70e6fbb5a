package webui

import (
	"fmt"
	"net/http"
	"time"

	"github.com/webtable/webtable/internal/jsonshape"

	"github.com/webtable/webtable/webtable"
)

// overviewTablets is how many tablets the overview lists (the tablets view
// lists them all).
const overviewTablets = 20

// overviewData is the overview: schema, counts, chart, domains, tablets.
type overviewData struct {
	Table    string
	Tables   []string
	Families []webtable.FamilyInfo
	Summary  summaryView
	Domains  []treeEntry // the top of the domain tree, two levels deep
	Tablets  []webtable.Tablet
	More     int          // tablets not listed
	Top      []rankedPage // the pages of highest rank (index rank), best first
}

// summaryView says how fresh the counts are.
type summaryView struct {
	Ready    bool
	Age      time.Duration // since the summary was built
	Took     time.Duration
	Building bool
	Running  time.Duration // how long the current build has run
	Err      string
	Stats    webtable.Stats
	Chart    chart
	Partial  bool
}

// treeEntry is a domain with its row count and, one level down, its
// subdomains.
type treeEntry struct {
	Name     string
	Key      string
	Rows     int64
	Children []treeEntry
}

// jsonOverview is the JSON of the overview (documented in doc.go).
type jsonOverview struct {
	Table    string       `json:"table"`
	Tables   []string     `json:"tables"`
	Families []jsonFamily `json:"families"`
	Summary  jsonSummary  `json:"summary"`
	Tablets  []jsonTablet `json:"tablets"`
	More     int          `json:"more_tablets"`
}

type jsonFamily struct {
	Name     string `json:"name"`
	GCPolicy string `json:"gc_policy"`
}

type jsonSummary struct {
	Ready      bool             `json:"ready"`
	Building   bool             `json:"building"`
	Built      string           `json:"built,omitempty"`
	AgeSeconds float64          `json:"age_seconds"`
	Error      string           `json:"error,omitempty"`
	Stats      *jsonshape.Stats `json:"stats,omitempty"`
	Fetches    []jsonBucket     `json:"fetches,omitempty"`
	Domains    []jsonDomain     `json:"domains,omitempty"`
	Partial    bool             `json:"partial,omitempty"`
	Took       time.Duration    `json:"-"`
}

type jsonBucket struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Count int64  `json:"count"`
}

func (ui *UI) summaryView() (summaryView, *summary) {
	s, building, started := ui.fresh()
	now := ui.opts.Now()
	v := summaryView{Building: building}
	if building {
		v.Running = now.Sub(started).Round(time.Second)
	}
	if s == nil {
		return v, nil
	}
	v.Ready, v.Age, v.Took, v.Partial = s.Err == nil, now.Sub(s.Built).Round(time.Second), s.Took.Round(time.Millisecond), s.Partial
	if s.Err != nil {
		v.Err = s.Err.Error()
		return v, nil
	}
	v.Stats = s.Stats
	v.Chart = drawChart(s.Fetches)
	return v, s
}

func (ui *UI) overview(r *http.Request) (result, error) {
	if r.URL.Query().Get("refresh") != "" {
		ui.refreshAsked()
	}
	ctx := r.Context()
	tables, fams, err := ui.w.Schema(ctx)
	if err != nil {
		return result{}, err
	}
	tablets, err := ui.w.Tablets(ctx)
	if err != nil {
		return result{}, err
	}
	d := overviewData{Table: ui.w.Table(), Tables: tables, Families: fams}
	var s *summary
	d.Summary, s = ui.summaryView()
	if s != nil {
		for _, k := range s.Tree[""].Children {
			d.Domains = append(d.Domains, entry(s, k, 1))
		}
		d.Top = s.Top
	}
	d.Tablets = tablets[:min(len(tablets), overviewTablets)]
	d.More = len(tablets) - len(d.Tablets)

	j := jsonOverview{Table: d.Table, Tables: tables, More: d.More}
	for _, f := range fams {
		j.Families = append(j.Families, jsonFamily{f.Name, f.GCPolicy})
	}
	j.Summary = jsonSummary{Ready: d.Summary.Ready, Building: d.Summary.Building, Error: d.Summary.Err, Partial: d.Summary.Partial}
	if s != nil {
		j.Summary.Built = s.Built.UTC().Format(time.RFC3339Nano)
		j.Summary.AgeSeconds = ui.opts.Now().Sub(s.Built).Seconds()
		st := jsonshape.StatsOf(s.Stats)
		j.Summary.Stats = &st
		for _, b := range s.Fetches {
			j.Summary.Fetches = append(j.Summary.Fetches, jsonBucket{b.Start.UTC().Format(time.RFC3339Nano), b.End.UTC().Format(time.RFC3339Nano), b.Count})
		}
		for _, k := range s.Tree[""].Children {
			j.Summary.Domains = append(j.Summary.Domains, toJSONDomain(s.Tree[k]))
		}
	}
	for _, t := range d.Tablets {
		j.Tablets = append(j.Tablets, jsonshape.TabletOf(t))
	}
	return result{page: "overview", title: fmt.Sprintf("table %s", d.Table), data: d, json: j}, nil
}

// entry is the tree entry of node k with depth levels of subdomains, at
// most maxChildren each.
func entry(s *summary, k string, depth int) treeEntry {
	n := s.Tree[k]
	e := treeEntry{Name: n.Name, Key: n.Key, Rows: n.Rows}
	if depth > 0 {
		for _, c := range n.Children[:min(len(n.Children), maxChildren)] {
			e.Children = append(e.Children, entry(s, c, depth-1))
		}
	}
	return e
}

// maxChildren bounds the subdomains the overview lists under one domain.
const maxChildren = 50

func (ui *UI) tablets(r *http.Request) (result, error) {
	tablets, err := ui.w.Tablets(r.Context())
	if err != nil {
		return result{}, err
	}
	j := make([]jsonTablet, len(tablets))
	for i, t := range tablets {
		j[i] = jsonshape.TabletOf(t)
	}
	return result{page: "tablets", title: "tablets", data: tablets, json: j}, nil
}
