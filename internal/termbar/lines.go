package termbar

import (
	"fmt"
	"io"
	"time"
)

// PlainEvery is how often a Progress that writes to no terminal writes a
// line.
const PlainEvery = 5 * time.Second

// Progress shows a run of unknown length as it goes: a spinner with a
// one-line state on a terminal, and otherwise that line, after a label,
// every PlainEvery at most. Its methods must not be called concurrently.
type Progress struct {
	w     io.Writer
	label string
	bar   *Bar // nil when w is not a terminal
	every time.Duration
	last  time.Time
}

// NewProgress returns the progress of a run on w; every line it writes
// starts with label (e.g. "pass 1/3: "; "" for none).
func NewProgress(w io.Writer, label string) *Progress {
	return &Progress{w: w, label: label, bar: NewSpinner(w, label+"starting"), every: PlainEvery, last: time.Now()}
}

// Update shows line as the state of the run after n steps: on a
// terminal at once, otherwise when PlainEvery has passed since the last
// line written.
func (p *Progress) Update(line string, n int64) {
	if p.bar != nil {
		p.bar.Describe(p.label + line)
		p.bar.Set64(n)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last = now
		fmt.Fprintf(p.w, "%s%s\n", p.label, line)
	}
}

// Line writes line after the label at once, whatever the time.
func (p *Progress) Line(line string) { fmt.Fprintf(p.w, "%s%s\n", p.label, line) }

// Finish clears the spinner, if any, and writes text as it is (for
// example a summary, which is not labelled line by line).
func (p *Progress) Finish(text string) {
	if p.bar != nil {
		p.bar.Finish()
	}
	fmt.Fprint(p.w, text)
}
