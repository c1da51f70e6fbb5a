package webui

import (
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

// topRanks is the topRanked pages of the table by rank:page, best first,
// from one scan of that column holding topRanked pages at a time.
func (ui *UI) topRanks(ctx context.Context) ([]rankedPage, error) {
	top, err := ui.w.TopRanked(ctx, nil, topRanked)
	if err != nil {
		return nil, err
	}
	out := make([]rankedPage, len(top))
	for i, p := range top {
		out[i] = rankedPage{p.Key, p.Rank}
	}
	return out, nil
}
