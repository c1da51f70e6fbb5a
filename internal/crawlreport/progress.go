package crawlreport

import (
	"fmt"
	"io"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/termbar"
)

// Progress shows a crawl as it goes (termbar.Progress: a spinner on a
// terminal, a plain line every few seconds otherwise) and its Summary at
// the end. Update is a crawler.Config.Progress; with Round, Progress is a
// shardrun.Reporter too. Its methods must not be called concurrently.
type Progress struct {
	bar    *termbar.Progress
	label  string
	max    int
	budget crawler.Budget // SetBudget
}

// NewProgress returns the progress of a crawl on w, its lines after label
// ("" for none); maxPages > 0 bounds the crawl, so that its lines show
// the time left (ETA).
func NewProgress(w io.Writer, label string, maxPages int) *Progress {
	return &Progress{bar: termbar.NewProgress(w, label), label: label, max: maxPages}
}

// SetBudget says the crawl is bounded by b (--budget) too, so that its
// lines show the time its queue takes at the budget's rate (ETAWithin).
func (p *Progress) SetBudget(b crawler.Budget) { p.budget = b }

// Update shows s, the crawl's figures so far; the last figures, those
// of a crawl done, are left to Finish.
func (p *Progress) Update(s crawler.Stats) {
	if !s.Done {
		p.bar.Update(ETAWithin(s, p.max, p.budget), s.Fetched)
	}
}

// Round writes at once the line of round n of a crawl run in rounds, with
// that round's figures s.
func (p *Progress) Round(n int, s crawler.Stats) {
	p.bar.Line(fmt.Sprintf("round %d: %s", n, Status(s)))
}

// Finish clears the spinner and writes the Summary of s.
func (p *Progress) Finish(s crawler.Stats) { p.bar.Finish(Summary(p.label, s)) }
