package crawlertest

import (
	"slices"
	"strings"

	"github.com/webtable/webtable/crawlstore"
)

// hostQueue is one host's frontier entries in a MemStore, in order of
// their Frontier positions (each new one is after the others).
//
// NB: a delete only marks its entry. A crawl deletes entries near the
// front of a long queue (the pages being fetched), and cutting each out of
// the slice moved every entry after it: a crawl of one 10,000-page host
// spent a sixth of its CPU doing that. The marked entries are cut out
// together once they are half of the slice, so a delete costs a binary
// search and, amortised, one entry moved.
type hostQueue struct {
	entries []crawlstore.Entry
	gone    []bool // gone[i]: entries[i] was deleted
	ngone   int
}

// push adds e, whose Frontier position is after every other entry's.
func (q *hostQueue) push(e crawlstore.Entry) {
	q.entries = append(q.entries, e)
	q.gone = append(q.gone, false)
}

// len returns the number of entries not deleted.
func (q *hostQueue) len() int { return len(q.entries) - q.ngone }

// search returns the index of the first entry at or after position pos,
// and whether one is at pos.
func (q *hostQueue) search(pos string) (int, bool) {
	return slices.BinarySearchFunc(q.entries, pos, func(e crawlstore.Entry, pos string) int { return strings.Compare(e.Frontier, pos) })
}

// delete deletes the entry at position pos, if there is one.
func (q *hostQueue) delete(pos string) {
	i, ok := q.search(pos)
	if !ok || q.gone[i] {
		return
	}
	q.gone[i] = true
	q.ngone++
	if 2*q.ngone < len(q.entries) {
		return
	}
	kept := 0
	for j, e := range q.entries {
		if !q.gone[j] {
			q.entries[kept] = e
			kept++
		}
	}
	clear(q.entries[kept:]) // NB: no deleted entry's strings stay reachable
	q.entries, q.gone, q.ngone = q.entries[:kept], q.gone[:kept], 0
	clear(q.gone)
}

// all calls fn with each entry not deleted, from the first at or after
// position from, in order, until fn returns false.
func (q *hostQueue) all(from string, fn func(crawlstore.Entry) bool) {
	i, _ := q.search(from)
	for ; i < len(q.entries); i++ {
		if !q.gone[i] && !fn(q.entries[i]) {
			return
		}
	}
}
