package termbar

import (
	"bytes"
	"testing"
	"time"
)

// TestProgressPlain: off a terminal, Progress writes a labelled line at
// most every PlainEvery, Line at once, and Finish its text as it is.
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, "pass 1/3: ")
	p.Update("fetched 1", 1) // within PlainEvery of the start
	if buf.Len() != 0 {
		t.Fatalf("Update within PlainEvery wrote %q, want nothing", buf.String())
	}
	p.last = time.Now().Add(-PlainEvery)
	p.Update("fetched 2", 2)
	p.Update("fetched 3", 3) // within PlainEvery of the line before
	p.Line("round 1: done")
	p.Finish("summary\n")
	if got, want := buf.String(), "pass 1/3: fetched 2\npass 1/3: round 1: done\nsummary\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
