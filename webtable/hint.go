package webtable

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/internal/keyspace"
	"github.com/webtable/webtable/urlkey"
)

// Frontier hints: where a host's live frontier entries start.
//
// An entry is deleted when its page is done, and a deleted row leaves
// tombstones in the embedded store until compactions drop them: a read of
// a host's frontier from its first key walks every entry done before. A
// crawl keeps its place in memory (a forward cursor per host), but a new
// run, after a kill, started from the first key again, once to list the
// hosts and once more per host to fill its window: after 60,000 pages of
// one host, 180,000 dead keys before the first live one.
//
// So a [WebTable.Save] that deletes an entry sometimes (one in
// hintEvery, chosen by a hash of the key, so that no state is kept)
// records that entry's key in the host's hint row,
//
//	~hint/<bucket>/<host>/   fetch:hint = the frontier key deleted
//
// and a resumed crawl starts reading the host there. NB: a hint is only a
// hint. Entries before it may still be live: pages that were in flight
// when the hint was written, a fetch retried, entries committed out of
// the order of their keys, a hint written by an older crawl. (The row
// ends with '/' so that hint rows sort in the order of the hosts' frontier
// prefixes: "a.b/" < "a/", as "~frontier/.../a.b/" < "~frontier/.../a/".) Readers that
// use one must also look before it ([WebTable.FrontierHosts] does when
// nothing follows the hint; the crawler reads the entries before a hint
// in the background), so a wrong hint costs a read, never an entry.
const (
	// FrontierHintPrefix starts the hint rows, one per host.
	FrontierHintPrefix = ReservedPrefix + "hint/"
	colHint            = "hint"
	// hintEvery is how many deletions of a host's entries write its hint,
	// on average, one of.
	hintEvery = 16
)

// frontierHintKey is the hint row of host.
func frontierHintKey(host string) string {
	return FrontierHintPrefix + bucketText(urlkey.HostBucket(host)) + "/" + host + "/"
}

// hintFor returns the hint row and its write recording that the frontier
// entry key was deleted, when key is one of the keys that write it.
func hintFor(key string) (row string, m *bigtable.Mutation, ok bool) {
	h := fnv.New32a()
	h.Write([]byte(key))
	if h.Sum32()%hintEvery != 0 {
		return "", nil, false
	}
	_, host, err := ParseFrontierKey(key)
	if err != nil {
		return "", nil, false
	}
	m = bigtable.NewMutation()
	m.SetOnlyVersion(FamilyFetch, colHint, FrontierTime, []byte(key)) // NB: one timestamp only: nothing to prune
	return frontierHintKey(host), m, true
}

// entryDeletes is the bulk write that deletes the frontier entries keys,
// each by a mutation from del, with the hint writes of those that write
// one (see hintFor) after it.
func entryDeletes(keys []string, del func() *bigtable.Mutation) batch {
	var b batch
	for _, k := range keys {
		b.add(k, del())
		if row, m, ok := hintFor(k); ok {
			b.add(row, m)
		}
	}
	return b
}

// FrontierHint returns the position where host's live frontier entries
// probably start (a key of the host's frontier, for [WebTable.FrontierNext]'s
// from), or "" when there is no usable hint. Live entries may sit before
// it: see the hint rows above.
func (w *WebTable) FrontierHint(ctx context.Context, host string) (string, error) {
	r, err := w.tbl.ReadRow(ctx, frontierHintKey(host), bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter(FamilyFetch), bigtable.ColumnFilter(colHint), bigtable.LatestNFilter(1))))
	if err != nil {
		return "", fmt.Errorf("webtable: reading the frontier hint of %s: %w", host, err)
	}
	return hintOf(r, host), nil
}

// hintOf reads the hint of host from its hint row; a value that is not a
// frontier key of host (a damaged row) is no hint.
func hintOf(r bigtable.Row, host string) string {
	for _, it := range r[FamilyFetch] {
		if qualifier(it.Column) != colHint {
			continue
		}
		v := string(it.Value)
		if _, h, err := ParseFrontierKey(v); err != nil || h != host {
			return ""
		}
		return v
	}
	return ""
}

// hostHint is one hint row read by FrontierHosts.
type hostHint struct {
	host, prefix, hint string
}

// hintReader reads the hint rows of a bucket range in key order, a page
// at a time.
type hintReader struct {
	w          *WebTable
	start, end string
	page       []hostHint
	done       bool
}

// hintPage is how many hint rows FrontierHosts reads at once.
const hintPage = 256

func newHintReader(w *WebTable, lo, hi int) *hintReader {
	start, end := bucketBounds(FrontierHintPrefix, lo, hi)
	return &hintReader{w: w, start: start, end: end}
}

// peek returns the next hint row, nil when there is none left.
func (h *hintReader) peek(ctx context.Context) (*hostHint, error) {
	for len(h.page) == 0 && !h.done {
		var last string
		n := 0
		err := h.w.tbl.ReadRows(ctx, bigtable.NewRange(h.start, h.end), func(r bigtable.Row) bool {
			last = r.Key()
			n++
			host, ok := strings.CutPrefix(r.Key(), FrontierHintPrefix)
			if ok && len(host) > 8 && host[6] == '/' && host[len(host)-1] == '/' {
				host = host[7 : len(host)-1]
				if hint := hintOf(r, host); hint != "" {
					h.page = append(h.page, hostHint{host: host, prefix: FrontierHostPrefix(host), hint: hint})
				}
			}
			return true
		}, bigtable.LimitRows(hintPage), bigtable.RowFilter(bigtable.ChainFilters(
			bigtable.FamilyFilter(FamilyFetch), bigtable.ColumnFilter(colHint), bigtable.LatestNFilter(1))))
		if err != nil {
			return nil, fmt.Errorf("webtable: reading frontier hints: %w", err)
		}
		h.done = n < hintPage
		h.start = last + "\x00"
	}
	if len(h.page) == 0 {
		return nil, nil
	}
	return &h.page[0], nil
}

// next drops the hint row peek returned.
func (h *hintReader) next() { h.page = h.page[1:] }

// hintsTried is how many hinted hosts HasFrontier tries before it lists
// the hosts.
const hintsTried = 4

// HasFrontier reports whether the frontier holds any entry. It tries the
// hosts that have hints first, each from its hint (one seek over the
// entries done before), then lists the hosts ([WebTable.FrontierHosts]),
// which walks from the first frontier key. An entry counts whether or not
// its page was fetched meanwhile (a stale duplicate, dropped when read).
func (w *WebTable) HasFrontier(ctx context.Context) (bool, error) {
	hints := newHintReader(w, 0, urlkey.Buckets)
	for range hintsTried {
		h, err := hints.peek(ctx)
		if err != nil || h == nil {
			break
		}
		key, err := w.firstKey(ctx, h.hint, keyspace.PrefixEnd(h.prefix))
		if err != nil {
			return false, err
		}
		if key != "" {
			return true, nil
		}
		hints.next()
	}
	found := false
	err := w.FrontierHosts(ctx, 0, urlkey.Buckets, func(string) bool { found = true; return false }, nil)
	return found, err
}
