package archive

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// indexRunBytes is how many bytes of CDXJ lines a Writer keeps in memory;
// beyond it they go, sorted, to a temporary file, and WriteIndex merges
// the files, so that an index of any size is written in bounded memory.
const indexRunBytes = 32 << 20

// index collects CDXJ lines and writes them sorted.
type index struct {
	lines []string
	bytes int
	limit int        // bytes kept in memory before a run is spilled
	runs  []*os.File // sorted runs, each a temporary file
}

// add keeps one line (ending with a newline).
func (x *index) add(line string) error {
	x.lines = append(x.lines, line)
	x.bytes += len(line)
	if x.bytes >= x.limit {
		return x.spill()
	}
	return nil
}

// spill writes the lines in memory, sorted, to a new run.
func (x *index) spill() error {
	slices.Sort(x.lines)
	f, err := os.CreateTemp("", "webtable-cdxj-*")
	if err != nil {
		return fmt.Errorf("archive: sorting the index: %w", err)
	}
	os.Remove(f.Name()) // NB: gone when closed, whatever happens
	bw := bufio.NewWriter(f)
	for _, l := range x.lines {
		bw.WriteString(l)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("archive: sorting the index: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("archive: sorting the index: %w", err)
	}
	x.runs = append(x.runs, f)
	x.lines, x.bytes = x.lines[:0], 0
	return nil
}

// close removes the runs.
func (x *index) close() {
	for _, f := range x.runs {
		f.Close()
	}
	x.runs = nil
}

// writeTo writes every line, sorted by bytes, and forgets them.
func (x *index) writeTo(w io.Writer) error {
	defer x.close()
	if len(x.runs) == 0 {
		slices.Sort(x.lines)
		for _, l := range x.lines {
			if _, err := io.WriteString(w, l); err != nil {
				return fmt.Errorf("archive: writing the index: %w", err)
			}
		}
		x.lines = nil
		return nil
	}
	if len(x.lines) > 0 {
		if err := x.spill(); err != nil {
			return err
		}
	}
	h := &runHeap{}
	for _, f := range x.runs {
		r := &run{r: bufio.NewReader(f)}
		if err := r.next(); err != nil {
			return err
		}
		if r.line != "" {
			h.runs = append(h.runs, r)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		r := h.runs[0]
		if _, err := io.WriteString(w, r.line); err != nil {
			return fmt.Errorf("archive: writing the index: %w", err)
		}
		if err := r.next(); err != nil {
			return err
		}
		if r.line == "" {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return nil
}

// run is a sorted run being merged: its current line ("" at its end).
type run struct {
	r    *bufio.Reader
	line string
}

// next reads the run's next line.
func (r *run) next() error {
	l, err := r.r.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("archive: merging the index: %w", err)
	}
	r.line = l
	return nil
}

// runHeap orders runs by their current line.
type runHeap struct{ runs []*run }

func (h *runHeap) Len() int           { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool { return h.runs[i].line < h.runs[j].line }
func (h *runHeap) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(v any)         { h.runs = append(h.runs, v.(*run)) }
func (h *runHeap) Pop() any {
	r := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return r
}
