package webui

import (
	"fmt"
	"time"
)

// chart is the fetch chart, drawn by the template as SVG rectangles: no
// script, no external resource.
type chart struct {
	Width, Height int
	Bars          []bar
	Max           int64 // the tallest bar's count
	Total         int64
	From, To      time.Time
}

// bar is one rectangle of the chart, in SVG user units.
type bar struct {
	X, Y, W, H int
	Title      string // shown on hover
}

// Chart size in SVG user units.
const (
	chartWidth  = 600
	chartHeight = 120
)

// drawChart lays out the fetch counts as bars filling the chart's width,
// heights relative to the tallest.
func drawChart(bs []bucket) chart {
	c := chart{Width: chartWidth, Height: chartHeight}
	if len(bs) == 0 {
		return c
	}
	for _, b := range bs {
		c.Max = max(c.Max, b.Count)
		c.Total += b.Count
	}
	c.From, c.To = bs[0].Start, bs[len(bs)-1].End
	w := chartWidth / len(bs)
	for i, b := range bs {
		h := 0
		if c.Max > 0 {
			h = int(b.Count * chartHeight / c.Max)
		}
		if b.Count > 0 && h == 0 {
			h = 1
		}
		c.Bars = append(c.Bars, bar{X: i * w, Y: chartHeight - h, W: max(w-1, 1), H: h,
			Title: fmt.Sprintf("%d fetches from %s to %s", b.Count, b.Start.UTC().Format(timeLayout), b.End.UTC().Format(timeLayout))})
	}
	return c
}

// timeLayout is how the interface shows a time, always UTC.
const timeLayout = "2006-01-02 15:04:05.000Z"
