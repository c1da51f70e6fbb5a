package webui

import (
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
)

// crawlData is the crawl view (/crawl): the queue now and over time, and
// the summary's counts of fetches and change rates.
type crawlData struct {
	Every   time.Duration // between samples
	Last    *queueSample  // nil before the first sample
	Samples int
	Err     string // the last sample's error
	Chart   queueChart
	Summary summaryView
	Rates   []rateBar // pages by estimated changes a day (continuous crawls)
}

// rateBar is one line of the change-rate histogram.
type rateBar struct {
	Label string
	Pages int64
	Width int // of its bar, in percent of the widest
}

// jsonCrawl is the JSON of the crawl view (documented in doc.go).
type jsonCrawl struct {
	EverySeconds float64         `json:"sampled_every_seconds"`
	Samples      []jsonQueue     `json:"samples"`
	Error        string          `json:"error,omitempty"`
	Summary      jsonCrawlCounts `json:"summary"`
}

// jsonQueue is one sample of the queue.
type jsonQueue struct {
	Time     string `json:"time"`
	Frontier int64  `json:"frontier"`
	Due      int64  `json:"due_entries"`
	DueNow   int64  `json:"due_now"`
	DueDay   int64  `json:"due_within_a_day"`
}

// jsonCrawlCounts is what the summary says of the crawl.
type jsonCrawlCounts struct {
	Ready    bool             `json:"ready"`
	Fetched  int64            `json:"fetched"`
	Failed   int64            `json:"failed"`
	Queued   int64            `json:"queued"`
	Versions int64            `json:"versions"`
	Rates    map[string]int64 `json:"change_rates,omitempty"`
}

func (ui *UI) crawl(*http.Request) (result, error) {
	samples, err := ui.queue.snapshot()
	d := crawlData{Every: ui.opts.QueueEvery, Samples: len(samples), Chart: drawQueue(samples)}
	if d.Every < 0 {
		d.Every = 0
	}
	if err != nil {
		d.Err = err.Error()
	}
	if len(samples) > 0 {
		d.Last = &samples[len(samples)-1]
	}
	var s *summary
	d.Summary, s = ui.summaryView()
	j := jsonCrawl{EverySeconds: d.Every.Seconds(), Samples: []jsonQueue{}, Error: d.Err}
	for _, q := range samples {
		j.Samples = append(j.Samples, jsonQueue{q.At.UTC().Format(time.RFC3339Nano), q.Frontier, q.Due, q.DueNow, q.DueDay})
	}
	if s != nil {
		st := s.Stats
		j.Summary = jsonCrawlCounts{Ready: true, Fetched: st.Fetched, Failed: st.Failed, Queued: st.Queued, Versions: st.Versions}
		d.Rates, j.Summary.Rates = rateBars(st.Rates.Unknown, st.Rates.Never, st.Rates.Decades)
	}
	return result{page: "crawl", title: "crawl", data: d, json: j}, nil
}

// rateBars is the histogram of change rates, as bars and as the JSON of
// query stats --json ("never", "unknown", "1e-2" for 0.01 to 0.1 changes a
// day); none when the crawl is not continuous.
func rateBars(unknown, never int64, decades map[int]int64) ([]rateBar, map[string]int64) {
	var bars []rateBar
	js := map[string]int64{}
	if unknown > 0 {
		bars = append(bars, rateBar{Label: "not known yet", Pages: unknown})
		js["unknown"] = unknown
	}
	if never > 0 {
		bars = append(bars, rateBar{Label: "never", Pages: never})
		js["never"] = never
	}
	for _, dec := range slices.Sorted(maps.Keys(decades)) {
		bars = append(bars, rateBar{Label: fmt.Sprintf("%g to %g", math.Pow(10, float64(dec)), math.Pow(10, float64(dec+1))), Pages: decades[dec]})
		js[fmt.Sprintf("1e%d", dec)] = decades[dec]
	}
	var most int64
	for _, b := range bars {
		most = max(most, b.Pages)
	}
	for i := range bars {
		bars[i].Width = int(math.Ceil(100 * float64(bars[i].Pages) / float64(max(most, 1))))
	}
	if len(bars) == 0 {
		return nil, nil
	}
	return bars, js
}

// queueChart is the queue over time, drawn by the template as SVG
// polylines: no script, no external resource.
type queueChart struct {
	Width, Height int
	Lines         []queueLine
	Max           int64 // the top of the chart, in entries
	From, To      time.Time
}

// queueLine is one series of the chart.
type queueLine struct {
	Name   string // shown in the legend
	Class  string // its colour, in style.css
	Points string // SVG points, "x,y x,y ..."
}

// drawQueue lays out the samples (two at least, oldest first) as lines of
// the frontier and of the pages due now, x by time, y relative to the
// largest count.
func drawQueue(samples []queueSample) queueChart {
	c := queueChart{Width: chartWidth, Height: chartHeight}
	if len(samples) < 2 {
		return c
	}
	c.From, c.To = samples[0].At, samples[len(samples)-1].At
	for _, s := range samples {
		c.Max = max(c.Max, s.Frontier, s.DueNow)
	}
	span := c.To.Sub(c.From).Seconds()
	line := func(name, class string, v func(queueSample) int64) queueLine {
		var b strings.Builder
		for i, s := range samples {
			x := float64(chartWidth) * float64(i) / float64(len(samples)-1)
			if span > 0 {
				x = float64(chartWidth) * s.At.Sub(c.From).Seconds() / span
			}
			y := float64(chartHeight)
			if c.Max > 0 {
				y -= float64(chartHeight) * float64(v(s)) / float64(c.Max)
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x, y)
		}
		return queueLine{Name: name, Class: class, Points: b.String()}
	}
	c.Lines = []queueLine{
		line("queued (frontier)", "frontier", func(s queueSample) int64 { return s.Frontier }),
		line("due now", "due", func(s queueSample) int64 { return s.DueNow }),
	}
	return c
}
