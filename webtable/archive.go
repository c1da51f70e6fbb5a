package webtable

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/urlkey"
)

// The contents qualifiers kept beside each contents:html version for web
// archives (WARC): what a capture needs besides its body.
const (
	colHTML    = "html"
	colSHA256  = "sha256"
	colHeaders = "headers" // the status line and response headers as received
	colFetched = "url"     // the URL fetched, scheme included
	// colSeen is the sha256 of an imported capture equal to the version
	// before it, kept at its time in place of a version (see
	// [WebTable.Import]).
	colSeen = "seen"
	// contents:status and contents:truncated ("true" when the body was cut
	// at the size limit; absent otherwise) share their names with the
	// fetch family's colStatus and colTruncated.
)

// setArchiveCells adds to m the cells a web archive needs beside a new
// contents:html version at ts: contents:url, contents:headers (when the
// page carries them) and contents:truncated (when the body was cut).
func setArchiveCells(m *bigtable.Mutation, p *Page, ts bigtable.Timestamp) {
	m.Set(FamilyContents, colFetched, ts, []byte(p.Fetch.URL))
	if len(p.Headers) > 0 {
		m.Set(FamilyContents, colHeaders, ts, p.Headers)
	}
	if p.Fetch.Truncated {
		m.Set(FamilyContents, colTruncated, ts, []byte("true"))
	}
}

// Capture is one stored contents:html version with what a web archive
// (WARC) record of it needs, or one capture read from such a record to be
// stored (see [WebTable.Import]).
type Capture struct {
	// Row is the row key (set by Captures; Import derives it from URL).
	Row string
	// URL is the URL fetched, scheme included (contents:url; for versions
	// stored before it was kept, the row's latest fetch:url).
	URL string
	// Time is the fetch time, whole milliseconds, UTC.
	Time time.Time
	// Status is the HTTP status (contents:status).
	Status int
	// Header is the status line and the response headers as received, in
	// HTTP/1.1 wire form ending with an empty line; nil for versions
	// stored before headers were kept.
	Header []byte
	// MIME is the media type (mime:type; only its newest version is kept,
	// so older captures show the newest).
	MIME string
	// Body is the stored contents:html: the body after the transfer's
	// chunking and Content-Encoding were removed. For Import, nil keeps no
	// version (a page that is not HTML, or failed): only the fetch record
	// and mime:type are written.
	Body []byte
	// Truncated says the body was cut at the crawl's size limit.
	Truncated bool
	// Anchors are the links of the page (Import only).
	Anchors []Anchor
	// Charset is the charset the page was decoded with (Import only; fetch:charset).
	Charset string
	// Error, when not "", says why the capture counts as a failed fetch
	// (Import only: fetch:error, and fetch:state failed).
	Error string
}

// Selection says which contents:html versions [WebTable.Captures] yields.
type Selection struct {
	// All yields every stored version, oldest first within a row.
	All bool
	// At yields the version current at that time (the newest at or before
	// it); 0 with All false means the newest.
	At Timestamp
}

// Captures calls fn with the chosen contents:html versions of every row in
// ranges (all rows when ranges is empty), in row-key order, until fn
// returns an error, which Captures returns. One row is in memory at a time.
func (w *WebTable) Captures(ctx context.Context, ranges []urlkey.Range, sel Selection, fn func(*Capture) error) error {
	contents := bigtable.FamilyFilter(FamilyContents)
	if sel.At > 0 && !sel.All {
		end := sel.At - sel.At%1000 + 1000 // see Query.filter
		contents = bigtable.ChainFilters(contents, bigtable.TimestampRangeFilterMicros(0, end))
	}
	f := bigtable.InterleaveFilters(
		contents,
		bigtable.ChainFilters(column(FamilyFetch, colURL), bigtable.LatestNFilter(1)),
		bigtable.ChainFilters(column(FamilyMIME, "type"), bigtable.LatestNFilter(1)),
	)
	var ferr error
	err := w.tbl.ReadRows(ctx, rowSet(ranges), func(r bigtable.Row) bool {
		caps, err := rowCaptures(r)
		if err != nil {
			ferr = err
			return false
		}
		if !sel.All && len(caps) > 1 {
			caps = caps[len(caps)-1:]
		}
		for _, c := range caps {
			if ferr = fn(c); ferr != nil {
				return false
			}
		}
		return true
	}, bigtable.RowFilter(f))
	if err != nil {
		return fmt.Errorf("webtable: reading captures: %w", err)
	}
	return ferr
}

// rowCaptures groups the contents cells of a row by timestamp into
// captures, oldest first; timestamps without contents:html are left out.
func rowCaptures(r bigtable.Row) ([]*Capture, error) {
	byTS := map[bigtable.Timestamp]*Capture{}
	var caps []*Capture
	var times []bigtable.Timestamp // of caps
	for _, it := range r[FamilyContents] {
		if qualifier(it.Column) == colHTML {
			// NB: the millisecond: captures of one instant have
			// versions at microseconds of it (see Import).
			c := &Capture{Row: r.Key(), Time: it.Timestamp.TruncateToMilliseconds().Time().UTC(), Body: it.Value}
			byTS[it.Timestamp] = c
			caps = append(caps, c)
			times = append(times, it.Timestamp)
		}
	}
	var fetchURL, mime string
	if items := r[FamilyFetch]; len(items) > 0 {
		fetchURL = string(items[0].Value)
	}
	if items := r[FamilyMIME]; len(items) > 0 {
		mime = string(items[0].Value)
	}
	for _, it := range r[FamilyContents] {
		c := byTS[it.Timestamp]
		if c == nil {
			continue
		}
		switch qualifier(it.Column) {
		case colStatus:
			n, err := strconv.Atoi(string(it.Value))
			if err != nil {
				return nil, fmt.Errorf("webtable: row %q contents:status holds %q: %w", r.Key(), it.Value, err)
			}
			c.Status = n
		case colHeaders:
			c.Header = it.Value
		case colFetched:
			c.URL = string(it.Value)
		case colTruncated:
			c.Truncated = string(it.Value) == "true"
		}
	}
	for _, c := range caps {
		c.MIME = mime
		if c.URL == "" {
			c.URL = fetchURL
		}
		if c.URL == "" {
			return nil, fmt.Errorf("webtable: row %q has contents:html at %s but no contents:url or fetch:url", r.Key(), formatTime(c.Time))
		}
	}
	order := make([]int, len(caps))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(times[a], times[b]) })
	sorted := make([]*Capture, len(caps))
	for i, k := range order {
		sorted[i] = caps[k]
	}
	return sorted, nil
}

// Import stores a capture read from a web archive as a version of its row,
// dated by its capture time: contents:html with its sha256, status, url and
// headers, mime:type, the fetch record (state done, or failed with
// c.Error), and an anchor in the row of each link target, all at that
// time. Nothing is queued. It reports NewVersion, Unchanged, or NoBody
// when c.Body is nil.
//
// Captures may arrive in any order: the body becomes a new version when it
// differs from the stored version just before it in time; when it equals
// the version just after it, that version moves back to this earlier time
// (the content was already there then). A capture equal to the version
// before it is kept as a sighting (contents:seen, its sha256, at its time),
// so that when a different capture later arrives between the two, the
// sighting becomes a version again: its body, status, url and headers are
// copied from the version it equalled. Sightings are collected like
// versions (the newest [Options.Versions] are kept); one collected leaves
// no trace.
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
// one instant with equal bodies are one capture: the first stored keeps
// its headers. A store that keeps times to the millisecond only (Cloud
// Bigtable) cannot hold two bodies at one instant: Import returns an error
// for the second rather than let it overwrite the first.
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
	keys := make([]string, len(caps))
	perInstant := map[string]int{} // captures of this batch by row and instant
	for i, c := range caps {
		k, err := urlkey.Key(c.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: importing: %w", err)
		}
		keys[i] = k
		perInstant[instantKey(k, timestamp(c.Time))]++
	}
	versions, err := w.versionSums(ctx, keys)
	if err != nil {
		return nil, err
	}
	var b batch
	out := make([]Stored, len(caps))
	im := &importing{w: w, pages: map[string]*Page{}, written: map[string]cells{}, anchors: map[string]string{}}
	for i, c := range caps {
		key, t := keys[i], timestamp(c.Time)
		var hexSum string
		if c.Body != nil {
			hexSum = sha256Hex(c.Body)
		}
		vs := versions[key]
		// The captures already stored at this instant decide whether this
		// one is its latest (see Import) and whether its anchors meet
		// another capture's.
		latest, shared, again := true, false, false
		lo, hi := instant(vs, t)
		for _, e := range vs[lo:hi] {
			latest = latest && e.sum <= hexSum
			shared = shared || e.sum != hexSum
			again = again || e.sum == hexSum
		}
		p := &Page{
			Fetch: Fetch{
				URL: c.URL, Status: c.Status, Time: c.Time.UTC().Truncate(time.Millisecond),
				Length: int64(len(c.Body)), Charset: c.Charset, Truncated: c.Truncated, Error: c.Error,
			},
			MIME:     c.MIME,
			KeepBody: c.Body != nil,
			Body:     c.Body,
			Headers:  c.Header,
		}
		// NB: one mutation per row, its operations in order, so that a
		// row met twice in the batch is written as if one by one
		// (Cloud Bigtable's bulk writes promise no order between entries).
		stored := NoBody
		switch {
		case !latest && (c.Body == nil || again):
			// Nothing to write in the row: the body is there already
			// and the fetch record is another capture's.
			if c.Body != nil {
				stored = Unchanged
			}
		case c.Body != nil:
			m, _ := b.mutation(key)
			if stored, vs, err = im.storeBody(ctx, m, key, vs, t, p, hexSum); err != nil {
				return nil, err
			}
			versions[key] = vs
		}
		if latest {
			m, _ := b.mutation(key)
			setFetchRecord(m, p.Fetch, t)
			if p.MIME != "" {
				m.Set(FamilyMIME, "type", t, []byte(p.MIME))
			}
			state := StateDone
			if c.Error != "" {
				state = StateFailed
			}
			m.Set(FamilyFetch, colState, t, []byte(state))
		}
		u, err := urlkey.Canonical(c.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: importing: %w", err)
		}
		referrer, anchors := urlkey.Referrer(u), c.Anchors
		if len(anchors) > 0 && (shared || perInstant[instantKey(key, t)] > 1) {
			if anchors, err = im.greatestAnchors(ctx, referrer, anchors, t, shared); err != nil {
				return nil, err
			}
		}
		if _, err := w.addLinkMutations(ctx, &b, referrer, anchors, nil, t, Requeue{}); err != nil {
			return nil, err
		}
		out[i] = stored
	}
	if err := w.applyBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("webtable: importing %d captures from %s: %w", len(caps), caps[0].URL, err)
	}
	return out, nil
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
			// NB: remembered so that a different capture arriving
			// later between the two restores this content after it.
			m.Set(FamilyContents, colSeen, ts, []byte(hexSum))
			vs = setVersion(vs, j, version{ts, hexSum, true})
		}
		return Unchanged, vs, nil
	}
	im.put(m, key, hexSum, ts, cells{page: p})
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
// same sha256), and a version equal to the content before it becomes a
// sighting (the content was already there). It adds the cells to m and
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
			deleteEntry(m, e.ts, slotEnd(vs, k))
			delete(im.written, instantKey(key, e.ts))
			m.Set(FamilyContents, colSeen, e.ts, []byte(e.sum))
			e.seen = true
		case e.sum != current:
			ok, err := im.copyVersion(ctx, m, key, vs, e.sum, e.ts)
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

// copyVersion adds to m the contents cells of a version with sha256 sum
// at ts, copied from another version with that sum: one this batch wrote,
// else one the store holds, else this batch's page of that body. It
// reports false when no such version is left.
func (im *importing) copyVersion(ctx context.Context, m *bigtable.Mutation, key string, vs []version, sum string, ts bigtable.Timestamp) (bool, error) {
	src := -1
	for k, v := range vs {
		if v.seen || v.sum != sum || v.ts == ts {
			continue
		}
		if c, ok := im.written[instantKey(key, v.ts)]; ok {
			im.put(m, key, sum, ts, c)
			return true, nil
		}
		if src < 0 {
			// NB: not written by this batch, so its cells are in the
			// store at its time.
			src = k
		}
	}
	if src < 0 {
		if p := im.pages[key+"\x00"+sum]; p != nil {
			im.put(m, key, sum, ts, cells{page: p})
			return true, nil
		}
		return false, nil
	}
	c, err := im.storedCells(ctx, key, vs, src)
	if err != nil {
		return false, err
	}
	im.put(m, key, sum, ts, c)
	return true, nil
}

// storedCells reads the contents cells of the version vs[k] from the
// store, where they must be at its time.
func (im *importing) storedCells(ctx context.Context, key string, vs []version, k int) (cells, error) {
	at := vs[k].ts
	r, err := im.w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter(FamilyContents), bigtable.TimestampRangeFilterMicros(at, slotEnd(vs, k)))))
	if err != nil {
		return cells{}, fmt.Errorf("webtable: reading the version of %q at %s: %w", key, formatTime(at.Time()), err)
	}
	var c cells
	for _, it := range r[FamilyContents] {
		if qualifier(it.Column) != colSeen {
			c.items = append(c.items, it)
		}
	}
	if len(c.items) == 0 {
		return cells{}, fmt.Errorf("webtable: importing %q: the version at %s is not in the store", key, formatTime(at.Time()))
	}
	return c, nil
}

// cells are the contents cells of a version: a page's, or cells read
// from the store.
type cells struct {
	page  *Page
	items []bigtable.ReadItem
}

// put adds to m the contents cells c of a version with sha256 sum at ts,
// and remembers them there.
func (im *importing) put(m *bigtable.Mutation, key, sum string, ts bigtable.Timestamp, c cells) {
	if c.page != nil {
		setContents(m, c.page, sum, ts)
	}
	for _, it := range c.items {
		m.Set(FamilyContents, qualifier(it.Column), ts, it.Value)
	}
	im.written[instantKey(key, ts)] = c
}

// versionSums reads the stored versions of the rows keys, oldest first.
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
			byTS[it.Timestamp] = version{it.Timestamp, string(it.Value), seen}
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
