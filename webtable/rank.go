package webtable

import (
	"container/heap"
	"context"
	"strconv"

	"github.com/webtable/webtable/urlkey"
)

// RankedPage is a page and its rank:page.
type RankedPage struct {
	Key  string  // the page's row key
	Rank float64 // its rank:page
}

// TopRanked returns the n pages of ranges (every page when ranges is nil)
// with the highest rank:page, highest first, ties by key (ascending), from
// one scan of that column holding n pages in memory whatever the range. A
// rank:page cell that is not a number is passed over; n < 1 lists none.
func (w *WebTable) TopRanked(ctx context.Context, ranges []urlkey.Range, n int) ([]RankedPage, error) {
	if n < 1 {
		return nil, nil
	}
	h := &rankHeap{}
	err := w.Scan(ctx, ranges, Query{Column: FamilyRank + ":page"}, 0, func(r Row) bool {
		for _, c := range r.Cells {
			v, err := strconv.ParseFloat(string(c.Value), 64)
			if err != nil {
				continue
			}
			p := RankedPage{r.Key, v}
			if h.Len() < n {
				heap.Push(h, p)
			} else if (*h)[0].worse(p) {
				(*h)[0] = p
				heap.Fix(h, 0)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	out := make([]RankedPage, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(RankedPage)
	}
	return out, nil
}

// worse orders pages by rank, then key descending (the heap's order).
func (p RankedPage) worse(q RankedPage) bool {
	if p.Rank != q.Rank {
		return p.Rank < q.Rank
	}
	return p.Key > q.Key
}

// rankHeap is a min-heap of the best pages so far: its root is the worst.
type rankHeap []RankedPage

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return h[i].worse(h[j]) }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(RankedPage)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
