package webui

import (
	"container/heap"
	"context"
	"strconv"
	"strings"

	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// What the indexing jobs (cmd/index) derived, as the views show it.

// topRanked is how many pages the overview lists by rank.
const topRanked = 20

// maxShownDups bounds the members of a cluster of duplicates a page view
// lists.
const maxShownDups = 50

// rankedPage is a page and its rank:page.
type rankedPage struct {
	Key  string
	Rank float64
}

// RankText is the rank as stored (the shortest decimal).
func (p rankedPage) RankText() string { return strconv.FormatFloat(p.Rank, 'f', -1, 64) }

// derivedView is what a page view shows of the derived families; nil
// when the page has none.
type derivedView struct {
	Rank, Hosts, Lang, Title, Simhash string
	Of                                string   // the representative of the page's duplicates ("" none)
	Members                           []string // the cluster's other members found (see dupMembers)
	More                              bool     // more members than listed
}

// derivedOf collects the derived cells of a row (newest version first,
// as rows come), nil when it has none.
func derivedOf(r webtable.Row) *derivedView {
	var d derivedView
	seen := false
	for _, c := range r.Cells {
		if !webtable.IsDerived(c.Family) {
			continue
		}
		seen = true
		v := string(c.Value)
		set := func(dst *string) {
			if *dst == "" {
				*dst = v
			}
		}
		switch c.Column() {
		case "rank:page":
			set(&d.Rank)
		case "rank:hosts":
			set(&d.Hosts)
		case "text:lang":
			set(&d.Lang)
		case "text:title":
			set(&d.Title)
		case "dup:simhash":
			set(&d.Simhash)
		case "dup:of":
			set(&d.Of)
		}
	}
	if !seen {
		return nil
	}
	return &d
}

// dupMembers lists the other members of the page's cluster of duplicates,
// across the whole table, at most maxShownDups: one read of the
// representative's dup:members. A store whose dups job has not run since
// that column existed has none; then the representative's domain is
// searched (copies on other sites are not found that way: query scan
// --dups finds every one).
func (ui *UI) dupMembers(ctx context.Context, d *derivedView, self string) error {
	r, err := ui.w.Get(ctx, d.Of, webtable.Query{Column: "dup:members"})
	if err != nil {
		return err
	}
	if len(r.Cells) == 0 {
		return ui.dupMembersInDomain(ctx, d, self)
	}
	for _, k := range strings.Split(string(r.Cells[0].Value), "\n") {
		if k == self || k == "" {
			continue
		}
		if len(d.Members) == maxShownDups {
			d.More = true
			break
		}
		d.Members = append(d.Members, k)
	}
	return nil
}

// dupMembersInDomain lists the other pages whose dup:of names d.Of,
// searching the representative's domain only, at most maxShownDups.
func (ui *UI) dupMembersInDomain(ctx context.Context, d *derivedView, self string) error {
	host := hostOfKey(d.Of)
	ranges := urlkey.DomainRanges(forward(host))
	if len(ranges) == 0 {
		return nil
	}
	return ui.w.Scan(ctx, ranges, webtable.Query{Column: "dup:of"}, 0, func(r webtable.Row) bool {
		if r.Key == self || len(r.Cells) == 0 || string(r.Cells[0].Value) != d.Of {
			return true
		}
		if len(d.Members) == maxShownDups {
			d.More = true
			return false
		}
		d.Members = append(d.Members, r.Key)
		return true
	})
}

// rankHeap is a min-heap of the best pages so far: its root is the worst.
type rankHeap []rankedPage

func (h rankHeap) Len() int { return len(h) }
func (h rankHeap) Less(i, j int) bool {
	if h[i].Rank != h[j].Rank {
		return h[i].Rank < h[j].Rank
	}
	return h[i].Key > h[j].Key
}
func (h rankHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)   { *h = append(*h, x.(rankedPage)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topRanks is the topRanked pages of the table by rank:page, best first,
// from one scan of that column holding topRanked pages at a time.
func (ui *UI) topRanks(ctx context.Context) ([]rankedPage, error) {
	h := &rankHeap{}
	err := ui.w.Scan(ctx, nil, webtable.Query{Column: "rank:page"}, 0, func(r webtable.Row) bool {
		for _, c := range r.Cells {
			v, err := strconv.ParseFloat(string(c.Value), 64)
			if err != nil {
				continue
			}
			p := rankedPage{r.Key, v}
			if h.Len() < topRanked {
				heap.Push(h, p)
			} else if (*h)[0].Less(p) {
				(*h)[0] = p
				heap.Fix(h, 0)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	out := make([]rankedPage, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(rankedPage)
	}
	return out, nil
}

// Less orders pages by rank, then key descending (the heap's order).
func (p rankedPage) Less(q rankedPage) bool {
	if p.Rank != q.Rank {
		return p.Rank < q.Rank
	}
	return p.Key > q.Key
}
