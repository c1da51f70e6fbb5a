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
	for _, it := range r[FamilyContents] {
		if qualifier(it.Column) == colHTML {
			c := &Capture{Row: r.Key(), Time: it.Timestamp.Time().UTC(), Body: it.Value}
			byTS[it.Timestamp] = c
			caps = append(caps, c)
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
	slices.SortFunc(caps, func(a, b *Capture) int { return a.Time.Compare(b.Time) })
	return caps, nil
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
	for i, c := range caps {
		k, err := urlkey.Key(c.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: importing: %w", err)
		}
		keys[i] = k
	}
	versions, err := w.versionSums(ctx, keys)
	if err != nil {
		return nil, err
	}
	var b batch
	out := make([]Stored, len(caps))
	pages := map[string]*Page{} // by row key and sha256: the bodies of this batch
	for i, c := range caps {
		key, ts := keys[i], timestamp(c.Time)
		var hexSum string
		if c.Body != nil {
			hexSum = sha256Hex(c.Body)
		}
		vs := versions[key]
		// j: the first entry after ts; before: the newest version at or
		// before ts (sightings left aside).
		j, _ := slices.BinarySearchFunc(vs, ts+1, func(v version, t bigtable.Timestamp) int { return cmp.Compare(v.ts, t) })
		var before *version
		for k := j - 1; k >= 0 && before == nil; k-- {
			if !vs[k].seen {
				before = &vs[k]
			}
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
		stored, sum := NewVersion, hexSum
		switch {
		case c.Body == nil:
			stored = NoBody
		case before != nil && before.sum == hexSum:
			stored, sum = Unchanged, ""
		}
		// NB: one mutation per row, its operations in order, so that a
		// row met twice in the batch is written as if one by one
		// (Cloud Bigtable's bulk writes promise no order between entries).
		m, _ := b.mutation(key)
		setPage(m, p, sum)
		state := StateDone
		if c.Error != "" {
			state = StateFailed
		}
		m.Set(FamilyFetch, colState, ts, []byte(state))
		switch stored {
		case Unchanged:
			if before.ts != ts {
				// NB: remembered so that a different capture arriving
				// later between the two restores this content after it.
				m.Set(FamilyContents, colSeen, ts, []byte(hexSum))
				vs = setVersion(vs, j, version{ts, hexSum, true})
			}
		case NewVersion:
			pages[key+"\x00"+hexSum] = p
			vs = setVersion(vs, j, version{ts, hexSum, false})
			if vs, err = w.relinkAfter(ctx, m, key, vs, ts, pages); err != nil {
				return nil, err
			}
		}
		versions[key] = vs
		u, err := urlkey.Canonical(c.URL)
		if err != nil {
			return nil, fmt.Errorf("webtable: importing: %w", err)
		}
		if _, err := w.addLinkMutations(ctx, &b, urlkey.Referrer(u), c.Anchors, nil, ts, Requeue{}); err != nil {
			return nil, err
		}
		out[i] = stored
	}
	if err := w.applyBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("webtable: importing %d captures from %s: %w", len(caps), caps[0].URL, err)
	}
	return out, nil
}

// version is a stored contents:html version, or a sighting (a capture
// equal to the version before it, kept as contents:seen only): its
// timestamp and sha256.
type version struct {
	ts   bigtable.Timestamp
	sum  string
	seen bool
}

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
func (w *WebTable) relinkAfter(ctx context.Context, m *bigtable.Mutation, key string, vs []version, ts bigtable.Timestamp, pages map[string]*Page) ([]version, error) {
	i, _ := slices.BinarySearchFunc(vs, ts, func(v version, t bigtable.Timestamp) int { return cmp.Compare(v.ts, t) })
	current := vs[i].sum
	for k := i + 1; k < len(vs); k++ {
		e := &vs[k]
		switch {
		case !e.seen && e.sum != current:
			return vs, nil
		case !e.seen:
			// NB: a whole millisecond, as every WebTable timestamp
			// is: Cloud Bigtable refuses a range shorter than that.
			for _, q := range []string{colHTML, colSHA256, colStatus, colHeaders, colFetched, colTruncated} {
				m.DeleteTimestampRange(FamilyContents, q, e.ts, e.ts+1000)
			}
			m.Set(FamilyContents, colSeen, e.ts, []byte(e.sum))
			e.seen = true
		case e.sum != current:
			ok, err := w.copyVersion(ctx, m, key, vs, *e, pages)
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

// copyVersion adds to m the contents cells of a version with the sha256 of
// sighting s, at s's time: from this batch's pages, else from the store.
// It reports false when no such version is left (the sighting stays one).
func (w *WebTable) copyVersion(ctx context.Context, m *bigtable.Mutation, key string, vs []version, s version, pages map[string]*Page) (bool, error) {
	if p := pages[key+"\x00"+s.sum]; p != nil {
		setContents(m, p, s.sum, s.ts)
		return true, nil
	}
	k := slices.IndexFunc(vs, func(v version) bool { return !v.seen && v.sum == s.sum && v.ts != s.ts })
	if k < 0 {
		return false, nil
	}
	src := vs[k].ts
	r, err := w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter(FamilyContents), bigtable.TimestampRangeFilterMicros(src, src+1000))))
	if err != nil {
		return false, fmt.Errorf("webtable: reading the version of %q at %s to restore it: %w", key, formatTime(src.Time()), err)
	}
	for _, it := range r[FamilyContents] {
		if q := qualifier(it.Column); q != colSeen {
			m.Set(FamilyContents, q, s.ts, it.Value)
		}
	}
	return true, nil
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
