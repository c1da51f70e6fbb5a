package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/webtable/webtable/internal/termbar"
	"github.com/webtable/webtable/jobs"
)

// progress shows a job as it goes: a bar of its splits on a terminal, a
// plain line per phase and every few seconds otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	job   string
	quiet bool
	bar   *termbar.Bar
	every time.Duration
	start time.Time
	last  time.Time
}

const plainEvery = 5 * time.Second

func newProgress(w io.Writer, job string, quiet bool, every time.Duration) *progress {
	return &progress{w: w, job: job, quiet: quiet, every: every, start: time.Now()}
}

// line is the one-line state of a job: splits, rows, ETA.
func (p *progress) line(pr jobs.Progress) string {
	s := fmt.Sprintf("%s: %s, splits %d/%d, rows read %d", p.job, pr.Phase, pr.SplitsDone, pr.Splits, pr.Rows)
	if pr.RowsPlanned > 0 {
		s += fmt.Sprintf(" of ~%d", pr.RowsPlanned)
	}
	if el := time.Since(p.start); pr.Phase == "working" && pr.SplitsDone > 0 && pr.SplitsDone < pr.Splits {
		eta := time.Duration(float64(el) / float64(pr.SplitsDone) * float64(pr.Splits-pr.SplitsDone))
		s += fmt.Sprintf(", ETA %s", eta.Round(time.Second))
	}
	return s
}

// update is the runner's Progress callback (called from its workers).
func (p *progress) update(pr jobs.Progress) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if termbar.IsTerminal(p.w) {
		if p.bar == nil && pr.Splits > 0 {
			p.bar = termbar.NewBar(p.w, pr.Splits)
		}
		if p.bar != nil {
			p.bar.Describe(p.line(pr))
			p.bar.Set(pr.SplitsDone)
		}
		return
	}
	if pr.Phase == "working" && pr.SplitsDone < pr.Splits && time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	fmt.Fprintln(p.w, "index: "+p.line(pr))
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}
