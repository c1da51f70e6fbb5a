package webtable

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// Import stores a capture read from a web archive as a version of its row,
// dated by its capture time: contents:html with its sha256, status, url and
// headers, contents:rendered when the capture has a rendered page,
// mime:type, the fetch record (state done, or failed with c.Error), and
// an anchor in the row of each link target, all at that time. Nothing is
// queued. It reports NewVersion, Unchanged, or NoBody when c.Body is nil.
//
// Captures may arrive in any order: the body becomes a new version when it
// differs from the stored version just before it in time; when it equals
// the version just after it, that version moves back to this earlier time
// (the content was already there then). A capture equal to the version
// before it is kept as a sighting (contents:seen at its time: its sha256,
// status, url and headers, see encodeSeen), so that when a different
// capture later arrives between the two, the sighting becomes a version
// again: its body copied from the version it equalled, its own status,
// url and headers kept. Sightings are collected like versions (the newest
// [Options.Versions] are kept); one collected leaves no trace.
//
// Captures of one page at one instant (the same millisecond) with
// different bodies are all kept: each distinct body has its own entry
// (version or sighting) at consecutive microseconds of that millisecond,
// ordered by the bodies' sha256 (hex, ascending), so the time shown and
// exported stays the capture's millisecond and the result does not depend
// on the order the captures arrive in. The entry with the greatest sha256
// counts as the instant's latest capture: its fetch record and mime:type
// are kept. For the anchors the captures of one instant write, each target
// keeps the greatest text (byte order) any of them gives it. Captures of
// one instant with equal bodies are one capture: the headers, url, status
// and truncation that sort first (in that order, byte-wise) are kept, and
// of their fetch records the first by url, status, length, charset,
// truncation, error and media type. A store that keeps times to the
// millisecond only (Cloud Bigtable) cannot hold two bodies at one instant:
// Import returns an error for the second rather than let it overwrite the
// first.
func (w *WebTable) Import(ctx context.Context, c *Capture) (Stored, error) {
	st, err := w.importBatch(ctx, []*Capture{c})
	if err != nil {
		return NoBody, err
	}
	return st[0], nil
}

// importBatch imports captures as Import does, one after the other, in one
// bulk write: each row's write is atomic, and running it again writes the
// same cells. It reports what became of each capture.
//
// NB: crawl --from-warc stores one capture per call: batches of up to 64
// measured no faster on the shared test machine (the store's CPU, not its
// commits, set the pace there).
func (w *WebTable) importBatch(ctx context.Context, caps []*Capture) ([]Stored, error) {
	keys, perInstant, err := importKeys(caps)
	if err != nil {
		return nil, err
	}
	versions, err := w.versionSums(ctx, keys)
	if err != nil {
		return nil, err
	}
	var b batch
	out := make([]Stored, len(caps))
	im := &importing{w: w, pages: map[string]*Page{}, written: map[string]cells{}, records: map[string]string{}, anchors: map[string]string{}}
	for i, c := range caps {
		if out[i], err = im.importOne(ctx, &b, versions, keys[i], c, perInstant); err != nil {
			return nil, err
		}
	}
	if err := w.applyBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("webtable: importing %d captures from %s: %w", len(caps), caps[0].URL, err)
	}
	return out, nil
}

// importKeys checks the captures' URLs and times and returns the row key
// of each, in order, and how many captures of the batch fall on each row
// and instant (see instantKey).
func importKeys(caps []*Capture) (keys []string, perInstant map[string]int, err error) {
	keys = make([]string, len(caps))
	perInstant = map[string]int{} // captures of this batch by row and instant
	for i, c := range caps {
		k, err := urlkey.Key(c.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("webtable: importing: %w", err)
		}
		// NB: a time before 1970 has a negative timestamp, which the
		// store refuses, or -1, which it takes for "now".
		if _, err := CheckedTimestamp(c.Time); err != nil {
			return nil, nil, fmt.Errorf("webtable: importing %s: %w", c.URL, err)
		}
		keys[i] = k
		perInstant[instantKey(k, timestamp(c.Time))]++
	}
	return keys, perInstant, nil
}

// importOne adds to b the writes of capture c, of row key, as Import
// describes them, given the stored entries of each row (versions, which
// it updates) and the count of the batch's captures at each instant
// (perInstant). It reports what became of the capture.
func (im *importing) importOne(ctx context.Context, b *batch, versions map[string][]version, key string, c *Capture, perInstant map[string]int) (Stored, error) {
	t := timestamp(c.Time)
	var hexSum string
	if c.Body != nil {
		hexSum = sha256Hex(c.Body)
	}
	vs := versions[key]
	// The captures already stored at this instant decide whether this
	// one is its latest (see Import) and whether its anchors meet
	// another capture's.
	lo, hi := instant(vs, t)
	latest, shared, again := atInstant(vs[lo:hi], hexSum)
	p := capturePage(c)
	// Captures of this instant with this body are one capture: of
	// their facts, those that sort first are kept (see Import).
	var err error
	replace, record := false, latest
	if again {
		if replace, err = im.firstContents(ctx, key, vs[lo:hi], hexSum, p); err != nil {
			return NoBody, err
		}
	}
	if latest && (again || c.Body == nil) {
		if record, err = im.firstRecord(ctx, key, t, p); err != nil {
			return NoBody, err
		}
	}
	// NB: one mutation per row, its operations in order, so that a
	// row met twice in the batch is written as if one by one
	// (Cloud Bigtable's bulk writes promise no order between entries).
	stored := NoBody
	switch {
	case c.Body != nil && again:
		stored = Unchanged
		if replace {
			m, _ := b.mutation(key)
			k := lo + slices.IndexFunc(vs[lo:hi], func(e version) bool { return e.sum == hexSum })
			deleteEntry(m, vs[k].ts, slotEnd(vs, k))
			im.put(m, key, hexSum, vs[k].ts, pageCells(p, hexSum), vs[k].seen)
		}
	case c.Body != nil:
		m, _ := b.mutation(key)
		if stored, vs, err = im.storeBody(ctx, m, key, vs, t, p, hexSum); err != nil {
			return NoBody, err
		}
		versions[key] = vs
	}
	if record {
		m, _ := b.mutation(key)
		im.putRecord(m, key, t, p)
	}
	if err := im.addAnchors(ctx, b, c, t, shared || again, perInstant[instantKey(key, t)] > 1); err != nil {
		return NoBody, err
	}
	return stored, nil
}

// atInstant compares the body with sha256 hexSum ("" for none) with the
// entries stored at its instant, inst: latest, no entry has a greater
// sha256 (the capture is the instant's latest, see Import); shared, an
// entry has another sha256; again, an entry has this one.
func atInstant(inst []version, hexSum string) (latest, shared, again bool) {
	latest = true
	for _, e := range inst {
		latest = latest && e.sum <= hexSum
		shared = shared || e.sum != hexSum
		again = again || e.sum == hexSum
	}
	return latest, shared, again
}

// capturePage is the page a capture stores: its fetch record (at the
// capture's millisecond), media type, body, headers and rendered page.
func capturePage(c *Capture) *Page {
	return &Page{
		Fetch: crawlstore.Fetch{
			URL: c.URL, Status: c.Status, Time: c.Time.UTC().Truncate(time.Millisecond),
			Length: int64(len(c.Body)), Charset: c.Charset, Truncated: c.Truncated, Error: c.Error,
			Rendered: c.Rendered != nil && c.Body != nil,
		},
		MIME:     c.MIME,
		KeepBody: c.Body != nil,
		Body:     c.Body,
		Headers:  c.Header,
		Rendered: c.Rendered,
	}
}

// putRecord adds to m the fetch record of p at t, its mime:type (when
// known) and fetch:state (done, or failed when the capture failed), and
// remembers the record's recordKey at that instant.
func (im *importing) putRecord(m *bigtable.Mutation, key string, t bigtable.Timestamp, p *Page) {
	setFetchRecord(m, p.Fetch, t, rowCurrent)
	if p.MIME != "" {
		m.Set(FamilyMIME, "type", t, []byte(p.MIME))
	}
	state := crawlstore.StateDone
	if p.Fetch.Error != "" {
		state = crawlstore.StateFailed
	}
	m.Set(FamilyFetch, colState, t, []byte(state.String()))
	im.records[instantKey(key, t)] = recordKey(p.Fetch, p.MIME)
}

// addAnchors adds to b the anchors of capture c at t: when
// the instant is met by another capture, stored (met) or in this batch
// (several), each target keeps the greatest text (see greatestAnchors).
func (im *importing) addAnchors(ctx context.Context, b *batch, c *Capture, t bigtable.Timestamp, met, several bool) error {
	u, err := urlkey.Canonical(c.URL)
	if err != nil {
		return fmt.Errorf("webtable: importing: %w", err)
	}
	referrer, anchors := urlkey.Referrer(u), c.Anchors
	if len(anchors) > 0 && (met || several) {
		if anchors, err = im.greatestAnchors(ctx, referrer, anchors, t, met); err != nil {
			return err
		}
	}
	_, err = im.w.addLinkMutations(ctx, b, referrer, anchors, nil, t, crawlstore.Requeue{}, false)
	return err
}

// importing is what one importBatch remembers of the cells it has written
// so far (its writes are applied at its end, so the store does not show
// them yet).
type importing struct {
	w *WebTable
	// pages holds this batch's new versions, by row key and sha256.
	pages map[string]*Page
	// written holds where the contents cells this batch wrote came from,
	// by row key and time (see instantKey).
	written map[string]cells
	// records holds the recordKey of the fetch records this batch wrote,
	// by row key and instant.
	records map[string]string
	// anchors holds the anchor texts written at instants shared by
	// several captures of this batch, by target row, referrer and time.
	anchors map[string]string
}

// storeBody stores the body of p, with sha256 hexSum, captured at instant
// t, as a version or a sighting at its place among the entries vs of the
// row key, and returns what it did and the updated entries.
func (im *importing) storeBody(ctx context.Context, m *bigtable.Mutation, key string, vs []version, t bigtable.Timestamp, p *Page, hexSum string) (Stored, []version, error) {
	ts, vs, err := im.slot(ctx, m, key, vs, t, hexSum)
	if err != nil {
		return NoBody, nil, err
	}
	if p.Rendered != nil {
		// NB: at the entry's own time, version or sighting, as a crawl
		// stores it: what the browser built then.
		m.Set(FamilyContents, ColRendered, ts, p.Rendered)
	}
	// j: the first entry after ts; before: the newest version at or
	// before ts (sightings left aside).
	j, _ := slices.BinarySearchFunc(vs, ts+1, byTime)
	var before *version
	for k := j - 1; k >= 0 && before == nil; k-- {
		if !vs[k].seen {
			before = &vs[k]
		}
	}
	if before != nil && before.sum == hexSum {
		if before.ts != ts {
			// NB: remembered, with the capture's own status, URL and
			// headers, so that a different capture arriving later
			// between the two restores this content after it.
			im.put(m, key, hexSum, ts, pageCells(p, hexSum), true)
			vs = setVersion(vs, j, version{ts, hexSum, true})
		}
		return Unchanged, vs, nil
	}
	im.put(m, key, hexSum, ts, pageCells(p, hexSum), false)
	im.pages[key+"\x00"+hexSum] = p
	vs = setVersion(vs, j, version{ts, hexSum, false})
	vs, err = im.relinkAfter(ctx, m, key, vs, ts)
	return NewVersion, vs, err
}

// version is a stored contents:html version, or a sighting (a capture
// equal to the version before it, kept as contents:seen only): its
// timestamp and sha256.
type version struct {
	ts   bigtable.Timestamp
	sum  string
	seen bool
}

// byTime orders versions by their time, for binary searches.
func byTime(v version, t bigtable.Timestamp) int { return cmp.Compare(v.ts, t) }

// setVersion puts v into vs, whose first entry after v.ts is at j,
// replacing an entry at v.ts.
func setVersion(vs []version, j int, v version) []version {
	if j > 0 && vs[j-1].ts == v.ts {
		vs[j-1] = v
		return vs
	}
	return slices.Insert(vs, j, v)
}

// relinkAfter restores the rule "a version is new when it differs from the
// one before it in time" after a new version at ts: walking the entries
// after ts up to the next version that still differs, a sighting of other
// content becomes a version again (its body copied from a version with the
// same sha256, its own status, URL and headers kept), and a version equal
// to the content before it becomes a sighting (the content was already
// there; its status, URL and headers stay). It adds the cells to m and
// returns the updated entries.
func (im *importing) relinkAfter(ctx context.Context, m *bigtable.Mutation, key string, vs []version, ts bigtable.Timestamp) ([]version, error) {
	i, _ := slices.BinarySearchFunc(vs, ts, byTime)
	current := vs[i].sum
	for k := i + 1; k < len(vs); k++ {
		e := &vs[k]
		switch {
		case !e.seen && e.sum != current:
			return vs, nil
		case !e.seen:
			c, err := im.cellsAt(ctx, key, vs, k)
			if err != nil {
				return nil, err
			}
			deleteEntry(m, e.ts, slotEnd(vs, k))
			im.put(m, key, e.sum, e.ts, c, true)
			e.seen = true
		case e.sum != current:
			ok, err := im.restore(ctx, m, key, vs, k)
			if err != nil {
				return nil, err
			}
			if ok {
				e.seen = false
			}
			current = e.sum
		}
	}
	return vs, nil
}

// restore adds to m what makes the sighting vs[k] a version again: the
// body of another version with its sha256 (one this batch wrote, else one
// the store holds, else this batch's page of that body), beside the
// sighting's own status, URL and headers (a sighting stored before those
// were kept takes the other version's). It reports false when no version
// with that body is left.
func (im *importing) restore(ctx context.Context, m *bigtable.Mutation, key string, vs []version, k int) (bool, error) {
	s := vs[k]
	src, ok, err := im.bodyOf(ctx, key, vs, s.sum, s.ts)
	if err != nil || !ok {
		return false, err
	}
	own, err := im.cellsAt(ctx, key, vs, k)
	if err != nil {
		return false, err
	}
	merged := own
	if !own.hasFacts() {
		merged = src
	}
	merged = merged.with(colHTML, src.get(colHTML)).with(colSHA256, []byte(s.sum))
	m.DeleteTimestampRange(FamilyContents, colSeen, s.ts, slotEnd(vs, k))
	im.put(m, key, s.sum, s.ts, merged, false)
	return true, nil
}

// bodyOf returns the cells of a version with sha256 sum at another time
// than ts: one this batch wrote, else one the store holds, else this
// batch's page of that body; false when there is none.
func (im *importing) bodyOf(ctx context.Context, key string, vs []version, sum string, ts bigtable.Timestamp) (cells, bool, error) {
	src := -1
	for k, v := range vs {
		if v.seen || v.sum != sum || v.ts == ts {
			continue
		}
		if c, ok := im.written[instantKey(key, v.ts)]; ok && c.get(colHTML) != nil {
			return c, true, nil
		}
		if src < 0 {
			// NB: not written by this batch, so its cells are in the
			// store at its time.
			src = k
		}
	}
	if src >= 0 {
		c, err := im.cellsAt(ctx, key, vs, src)
		if err == nil && c.get(colHTML) == nil {
			err = fmt.Errorf("webtable: importing %q: the version at %s is not in the store", key, formatTime(vs[src].ts.Time()))
		}
		return c, err == nil, err
	}
	if p := im.pages[key+"\x00"+sum]; p != nil {
		return pageCells(p, sum), true, nil
	}
	return nil, false, nil
}

// cellsAt returns the contents cells (contents:seen aside) of the entry
// vs[k]: those this batch wrote at its time, else the store's.
func (im *importing) cellsAt(ctx context.Context, key string, vs []version, k int) (cells, error) {
	at := vs[k].ts
	if c, ok := im.written[instantKey(key, at)]; ok {
		return c, nil
	}
	r, err := im.w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter(FamilyContents), bigtable.TimestampRangeFilterMicros(at, slotEnd(vs, k)))))
	if err != nil {
		return nil, fmt.Errorf("webtable: reading the contents of %q at %s: %w", key, formatTime(at.Time()), err)
	}
	var c, seen cells
	for _, it := range r[FamilyContents] {
		switch q := qualifier(it.Column); q {
		case colSeen:
			_, seen = decodeSeen(it.Value)
		case colMeta:
			mc, err := decodeMeta(it.Value)
			if err != nil {
				return nil, fmt.Errorf("webtable: row %q contents:meta holds %q: %w", key, it.Value, err)
			}
			c = append(c, mc...)
		case colHTML, colSHA256:
			c = append(c, cell{q, it.Value})
		}
	}
	if c.get(colHTML) == nil {
		return seen, nil
	}
	return c, nil
}

// put adds to m the cells c of the entry with sha256 sum at ts, or when
// seen a sighting (contents:seen alone, see encodeSeen), and remembers
// them there.
func (im *importing) put(m *bigtable.Mutation, key, sum string, ts bigtable.Timestamp, c cells, seen bool) {
	im.written[instantKey(key, ts)] = c
	if seen {
		m.Set(FamilyContents, colSeen, ts, encodeSeen(sum, c))
		return
	}
	for _, x := range c.stored() {
		m.Set(FamilyContents, x.q, ts, x.v)
	}
}

// versionSums reads the stored versions of the rows keys, oldest first, in
// one read.
func (w *WebTable) versionSums(ctx context.Context, keys []string) (map[string][]version, error) {
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string][]version, len(sorted))
	err := w.tbl.ReadRows(ctx, bigtable.RowList(sorted), func(r bigtable.Row) bool {
		byTS := map[bigtable.Timestamp]version{}
		for _, it := range r[FamilyContents] {
			seen := qualifier(it.Column) == colSeen
			if v, ok := byTS[it.Timestamp]; ok && !v.seen {
				continue // a version and a sighting at one time: the version counts
			}
			sum := string(it.Value)
			if seen {
				sum, _ = decodeSeen(it.Value)
			}
			byTS[it.Timestamp] = version{it.Timestamp, sum, seen}
		}
		vs := slices.Collect(maps.Values(byTS))
		slices.SortFunc(vs, func(a, b version) int { return cmp.Compare(a.ts, b.ts) })
		out[r.Key()] = vs
		return true
	}, bigtable.RowFilter(bigtable.InterleaveFilters(column(FamilyContents, colSHA256), column(FamilyContents, colSeen))))
	if err != nil {
		return nil, fmt.Errorf("webtable: reading stored versions: %w", err)
	}
	return out, nil
}
