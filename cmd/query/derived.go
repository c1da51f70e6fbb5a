package main

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// DefaultTop is how many rows scan --sort rank lists without --limit.
const DefaultTop = 20

type ranked struct {
	key  string
	rank float64
}

// rankHeap is a min-heap of the best rows so far: its root is the worst.
type rankHeap []ranked

func (h rankHeap) Len() int { return len(h) }
func (h rankHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].key > h[j].key
}
func (h rankHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)   { *h = append(*h, x.(ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scanTopRank lists the n rows of ranges with the highest rank:page,
// highest first (ties by key), holding n rows in memory whatever the range.
func scanTopRank(ctx context.Context, w *webtable.WebTable, ranges []urlkey.Range, n int, asJSON bool, stdout io.Writer) error {
	if n <= 0 {
		n = DefaultTop
	}
	h := &rankHeap{}
	err := w.Scan(ctx, ranges, webtable.Query{Column: "rank:page"}, 0, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			v, err := strconv.ParseFloat(string(c.Value), 64)
			if err != nil {
				continue
			}
			e := ranked{r.Key, v}
			if h.Len() < n {
				heap.Push(h, e)
			} else if (*h)[0].rank < v || (*h)[0].rank == v && e.key < (*h)[0].key {
				(*h)[0] = e
				heap.Fix(h, 0)
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	top := make([]ranked, h.Len())
	for i := len(top) - 1; i >= 0; i-- {
		top[i] = heap.Pop(h).(ranked)
	}
	if h.Len() == 0 && len(top) == 0 && !asJSON {
		return nil
	}
	enc := json.NewEncoder(stdout)
	for i, t := range top {
		if asJSON {
			if err := enc.Encode(map[string]any{"row": t.key, "rank": t.rank}); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(stdout, "%4d  %-22s %s\n", i+1, strconv.FormatFloat(t.rank, 'f', -1, 64), printable(t.key)); err != nil {
			return err
		}
	}
	return nil
}

// scanDups lists the clusters of duplicates whose members are in ranges:
// the representative (dup:of), then its members, one a line.
func scanDups(ctx context.Context, w *webtable.WebTable, ranges []urlkey.Range, limit int64, asJSON bool, stdout io.Writer) error {
	members := map[string][]string{}
	err := w.Scan(ctx, ranges, webtable.Query{Column: "dup:of"}, 0, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			members[string(c.Value)] = append(members[string(c.Value)], r.Key)
		}
		return true
	})
	if err != nil {
		return err
	}
	reps := make([]string, 0, len(members))
	for rep := range members {
		reps = append(reps, rep)
	}
	slices.Sort(reps)
	enc := json.NewEncoder(stdout)
	for i, rep := range reps {
		if limit > 0 && int64(i) >= limit {
			break
		}
		ms := members[rep]
		if asJSON {
			if err := enc.Encode(map[string]any{"representative": rep, "members": ms}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(stdout, "%s (%d pages)\n", printable(rep), len(ms))
		for _, m := range ms {
			if m != rep {
				if _, err := fmt.Fprintf(stdout, "  %s\n", printable(m)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
