package main

import (
	"io"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/crawlreport"
	"github.com/webtable/webtable/internal/termbar"
)

// progress shows a crawl as it goes (termbar.Progress: a spinner on a
// terminal, a plain line every few seconds otherwise) and its summary at
// the end (crawlreport.Summary).
type progress struct {
	bar   *termbar.Progress
	label string
	max   int // --max-pages of the run: a bound, so an ETA (0: none)
}

func newProgress(w io.Writer, label string) *progress {
	return &progress{bar: termbar.NewProgress(w, label), label: label}
}

// update is the crawler's Progress callback (never called concurrently).
func (p *progress) update(s crawler.Stats) {
	if !s.Done {
		p.bar.Update(crawlreport.ETA(s, p.max), s.Fetched)
	}
}

// finish clears the bar and prints the summary.
func (p *progress) finish(s crawler.Stats) { p.bar.Finish(crawlreport.Summary(p.label, s)) }
