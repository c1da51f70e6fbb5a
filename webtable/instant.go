package webtable

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// Captures of one page at one instant (see [WebTable.Import]): each
// distinct body has its own entry at a microsecond of the capture's
// millisecond, in the order of the bodies' sha256.

// microseconds is a Table that keeps timestamps to the microsecond (the
// embedded store's, see bigtable.Table.Microseconds).
type microseconds interface{ Microseconds() bool }

// contentsQualifiers are the contents cells of one version or sighting.
var contentsQualifiers = []string{colHTML, colSHA256, colMeta, colSeen}

// instantKey names the instant t (whole milliseconds) of the row key.
func instantKey(key string, t bigtable.Timestamp) string {
	return key + "\x00" + strconv.FormatInt(int64(t), 10)
}

// instant returns the entries of vs (sorted by time) in the millisecond
// that starts at t: vs[lo:hi].
func instant(vs []version, t bigtable.Timestamp) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(vs, t, byTime)
	hi, _ = slices.BinarySearchFunc(vs, t+1000, byTime)
	return lo, hi
}

// slotEnd is the end of the time range that holds the entry vs[k] and no
// other: the next entry's time when it falls in the same millisecond, else
// the end of that millisecond.
//
// NB: a whole millisecond whenever it can be: Cloud Bigtable, where every
// entry is one, refuses a shorter range.
func slotEnd(vs []version, k int) bigtable.Timestamp {
	end := vs[k].ts.TruncateToMilliseconds() + 1000
	if k+1 < len(vs) && vs[k+1].ts < end {
		return vs[k+1].ts
	}
	return end
}

// deleteEntry adds to m the deletion of the contents cells of the entry
// (version or sighting) in [from, to).
func deleteEntry(m *bigtable.Mutation, from, to bigtable.Timestamp) {
	for _, q := range contentsQualifiers {
		m.DeleteTimestampRange(FamilyContents, q, from, to)
	}
}

// keepsMicroseconds reports whether tbl keeps timestamps to the
// microsecond.
func keepsMicroseconds(tbl Table) bool {
	m, ok := tbl.(microseconds)
	return ok && m.Microseconds()
}

// slot returns the time of the entry for a body with sha256 sum captured
// at instant t: the entry that body already has, or a new place in the
// instant's sha256 order, made by moving the entries of greater sha256
// one microsecond later (their cells are moved in m). The returned
// entries have the moved times; the new place is not in them yet. A store
// that keeps milliseconds only, or a millisecond already holding 1000
// entries, makes it an error.
func (im *importing) slot(ctx context.Context, m *bigtable.Mutation, key string, vs []version, t bigtable.Timestamp, sum string) (bigtable.Timestamp, []version, error) {
	lo, hi := instant(vs, t)
	r := lo
	for r < hi && vs[r].sum < sum {
		r++
	}
	switch {
	case r < hi && vs[r].sum == sum:
		return vs[r].ts, vs, nil
	case hi == lo:
		return t, vs, nil
	case !keepsMicroseconds(im.w.tbl):
		return 0, nil, fmt.Errorf("webtable: importing %q: two captures at %s with different bodies: this store keeps times to the millisecond only (Cloud Bigtable), so one would overwrite the other; import into the embedded store (a directory) to keep both", key, formatTime(t.Time()))
	case vs[hi-1].ts+1 >= t+1000:
		return 0, nil, fmt.Errorf("webtable: importing %q: more than 1000 captures with different bodies at %s (one millisecond holds 1000 versions)", key, formatTime(t.Time()))
	case r == hi:
		return vs[hi-1].ts + 1, vs, nil
	}
	// The last first, so that each one's new time is free when it moves.
	for k := hi - 1; k >= r; k-- {
		if err := im.moveEntry(ctx, m, key, vs, k); err != nil {
			return 0, nil, err
		}
	}
	at := vs[r].ts
	for k := r; k < hi; k++ {
		vs[k].ts++
	}
	return at, vs, nil
}

// moveEntry adds to m the move of the entry vs[k] (version or sighting)
// one microsecond later, with its cells.
func (im *importing) moveEntry(ctx context.Context, m *bigtable.Mutation, key string, vs []version, k int) error {
	e := vs[k]
	c, err := im.cellsAt(ctx, key, vs, k)
	if err != nil {
		return err
	}
	if !e.seen && c.get(colHTML) == nil {
		return fmt.Errorf("webtable: importing %q: the version at %s is not in the store", key, formatTime(e.ts.Time()))
	}
	deleteEntry(m, e.ts, slotEnd(vs, k))
	delete(im.written, instantKey(key, e.ts))
	im.put(m, key, e.sum, e.ts+1, c, e.seen)
	return nil
}

// greatestAnchors returns the anchors of a capture at instant t that
// another capture of the instant has not given a greater text (the
// greatest wins, whatever the order they arrive in), and remembers them
// for the rest of the batch. stored says the store may hold such texts
// already.
func (im *importing) greatestAnchors(ctx context.Context, referrer string, anchors []Anchor, t bigtable.Timestamp, stored bool) ([]Anchor, error) {
	// The first text of a repeated target counts, as in addLinkMutations.
	first := map[string]Anchor{}
	var keys []string
	for _, a := range anchors {
		k, err := urlkey.Key(a.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: storing link: %w", err)
		}
		if _, ok := first[k]; !ok {
			first[k] = a
			keys = append(keys, k)
		}
	}
	have := map[string]string{}
	if stored {
		var toRead []string
		for _, k := range keys {
			if _, ok := im.anchors[instantKey(k+"\x00"+referrer, t)]; !ok {
				toRead = append(toRead, k)
			}
		}
		slices.Sort(toRead)
		err := im.w.tbl.ReadRows(ctx, bigtable.RowList(toRead), func(r bigtable.Row) bool {
			if items := r[FamilyAnchor]; len(items) > 0 {
				have[r.Key()] = string(items[0].Value)
			}
			return true
		}, bigtable.RowFilter(bigtable.ChainFilters(column(FamilyAnchor, referrer), bigtable.TimestampRangeFilterMicros(t, t+1000))))
		if err != nil {
			return nil, fmt.Errorf("webtable: reading the anchors from %s at %s: %w", referrer, formatTime(t.Time()), err)
		}
	}
	var out []Anchor
	for _, k := range keys {
		a := first[k]
		ik := instantKey(k+"\x00"+referrer, t)
		old, ok := im.anchors[ik]
		if !ok {
			old, ok = have[k]
		}
		if ok && old >= a.Text {
			continue
		}
		im.anchors[ik] = a.Text
		out = append(out, a)
	}
	return out, nil
}

// firstContents reports whether the contents facts of p (headers, URL,
// status, truncation) sort before those kept for the same body, sha256
// sum, among the entries inst of its instant: of captures of one instant
// with equal bodies, the first by these facts is kept, whatever the order
// they arrive in. A sighting stored before facts were kept has none: true.
func (im *importing) firstContents(ctx context.Context, key string, inst []version, sum string, p *Page) (bool, error) {
	i := slices.IndexFunc(inst, func(e version) bool { return e.sum == sum })
	if i < 0 {
		return false, nil
	}
	cur, err := im.cellsAt(ctx, key, inst, i)
	if err != nil {
		return false, err
	}
	return !cur.hasFacts() || pageCells(p, sum).factsKey() < cur.factsKey(), nil
}

// factsKey orders the contents facts of captures with equal bodies.
func (c cells) factsKey() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s", c.get(colHeaders), c.get(colFetched), c.get(colStatus), c.get(colTruncated))
}

// recordKey orders the fetch records of captures of one instant that
// could each be its latest.
func recordKey(f crawlstore.Fetch, mime string) string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%t\x00%s\x00%s", f.URL, f.Status, f.Length, f.Charset, f.Truncated, f.Error, mime)
}

// firstRecord reports whether the fetch record of p sorts before (or
// equals) the one already kept at instant t of the row key, if any: of
// captures of one instant that could each be its latest (equal bodies, or
// none), the first by recordKey keeps the fetch record and mime:type.
func (im *importing) firstRecord(ctx context.Context, key string, t bigtable.Timestamp, p *Page) (bool, error) {
	cur, ok := im.records[instantKey(key, t)]
	if !ok {
		inInstant := bigtable.TimestampRangeFilterMicros(t, t+1000)
		r, err := im.w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.InterleaveFilters(
			bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), inInstant),
			bigtable.ChainFilters(column(FamilyMIME, "type"), inInstant))))
		if err != nil {
			return false, fmt.Errorf("webtable: reading the fetch record of %q at %s: %w", key, formatTime(t.Time()), err)
		}
		if len(r[FamilyFetch]) == 0 {
			return true, nil
		}
		f, err := parseFetch(r)
		if err != nil {
			return false, err
		}
		var mime string
		if items := r[FamilyMIME]; len(items) > 0 {
			mime = string(items[0].Value)
		}
		cur = recordKey(f, mime)
	}
	return recordKey(p.Fetch, p.MIME) <= cur, nil
}
