// Package termbar draws the progress of a long run for the programs: a
// bar or spinner when they write to a terminal, nothing of the kind
// otherwise (they then write plain lines of their own).
//
// It is the one place the programs reach github.com/schollz/progressbar,
// so that a crawl and an index job look alike on a terminal.
package termbar

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Bar is a progress bar or spinner on a terminal.
type Bar = progressbar.ProgressBar

// throttle is how often a bar is drawn again at most.
const throttle = 100 * time.Millisecond

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// NewSpinner returns a spinner on w for a run of unknown length, described
// by desc until its first update, or nil when w is not a terminal. It
// clears itself when finished.
func NewSpinner(w io.Writer, desc string) *Bar {
	if !IsTerminal(w) {
		return nil
	}
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetWidth(10),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionClearOnFinish(),
	)
}

// NewBar returns a bar on w of n steps, showing the count, or nil when w
// is not a terminal. It clears itself when finished.
func NewBar(w io.Writer, n int) *Bar {
	if !IsTerminal(w) {
		return nil
	}
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionClearOnFinish(),
	)
}
