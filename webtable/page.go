package webtable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// Page is one fetch of a URL, as [WebTable.RecordFetch] stores it.
type Page struct {
	// Fetch is the fetch record; Fetch.URL names the row. Its State is
	// ignored here: see [WebTable.SetState].
	Fetch crawlstore.Fetch
	// MIME is the media type without parameters; "" leaves mime:type as it was.
	MIME string
	// KeepBody says Body is to be kept as a contents:html version (HTML
	// pages, or any page when the crawler stores everything). A 304 or a
	// failed fetch keeps none.
	KeepBody bool
	// Body is the page as fetched: raw bytes, before any charset conversion.
	Body []byte
	// Headers is the status line and the response headers as received, in
	// HTTP/1.1 wire form; stored in contents:meta beside a new version
	// (nil stores none).
	Headers []byte
	// SHA256 is the lower-case hex SHA-256 of Body when the caller has it
	// already (the crawler does); "" means computed here.
	SHA256 string
	// Rendered is the document a browser built from the page (crawl
	// --render), stored in contents:rendered at the fetch's time whether
	// Body is a new version or not; nil stores none.
	Rendered []byte
	// Screenshot is a PNG of the rendered page's first screen, stored in
	// screenshot:png (crawl --screenshots, which creates the family with
	// [WebTable.EnsureScreenshots]); nil stores none.
	Screenshot []byte
}

// bodySum is the hex SHA-256 of p's body, computed once.
func (p *Page) bodySum() string {
	if p.SHA256 == "" {
		p.SHA256 = sha256Hex(p.Body)
	}
	return p.SHA256
}

// Stored says what [WebTable.RecordFetch] did with a page's body.
type Stored int

const (
	// NoBody means the page had no body to keep.
	NoBody Stored = iota
	// NewVersion means the body differed from the newest stored version (or
	// there was none) and was stored as a new contents:html version.
	NewVersion
	// Unchanged means the body equalled the newest stored version, so only
	// the fetch record was written.
	Unchanged
)

// RecordFetch writes one fetch of a page into its row in a single atomic
// mutation: the fetch record, mime:type and, when the body's SHA-256
// differs from the newest stored contents:sha256, a new contents:html
// version with its contents:sha256 and contents:meta. The frontier state
// is left alone; the caller sets it once the page's links are stored.
func (w *WebTable) RecordFetch(ctx context.Context, p *Page) (Stored, error) {
	key, err := urlkey.Key(p.Fetch.URL)
	if err != nil {
		return NoBody, fmt.Errorf("webtable: storing fetch: %w", err)
	}
	if !p.KeepBody {
		if err := w.tbl.Apply(ctx, key, pageMutation(p, "", rowCurrent)); err != nil {
			return NoBody, fmt.Errorf("webtable: storing fetch of %s: %w", p.Fetch.URL, err)
		}
		return NoBody, nil
	}
	hexSum := p.bodySum()
	// The newest contents:sha256 equals this body's: only the record goes in.
	// NB: ranges, not regular expressions: this runs for every page stored,
	// and a pattern would be compiled each time.
	sameAsNewest := bigtable.ChainFilters(
		column(FamilyContents, "sha256"),
		bigtable.LatestNFilter(1),
		bigtable.ValueRangeFilter([]byte(hexSum), []byte(hexSum+"\x00")),
	)
	var unchanged bool
	cond := bigtable.NewCondMutation(sameAsNewest, pageMutation(p, "", rowCurrent), pageMutation(p, hexSum, rowCurrent))
	if err := w.tbl.Apply(ctx, key, cond, bigtable.GetCondMutationResult(&unchanged)); err != nil {
		return NoBody, fmt.Errorf("webtable: storing page %s: %w", p.Fetch.URL, err)
	}
	if unchanged {
		return Unchanged, nil
	}
	return NewVersion, nil
}

// pageMutation is the write of one fetch into its row: the fetch record,
// mime:type and, when hexSum is not "", the body as a new contents:html
// version with its contents:sha256 (hexSum) and contents:meta.
//
// form is what the caller knows of the row (see rowForm): a fresh row
// holds no fetch record, content or MIME type yet, only a queued row's
// state, so its cells skip pruning (SetOnlyVersion).
func pageMutation(p *Page, hexSum string, form rowForm) *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.Grow(fetchRecordCells + 1 + 3 + 2) // the record, mime:type, 3 contents cells (cells.stored), rendered, screenshot
	setPage(m, p, hexSum, form)
	return m
}

// setPage adds the cells of pageMutation to m.
func setPage(m *bigtable.Mutation, p *Page, hexSum string, form rowForm) {
	ts := timestamp(p.Fetch.Time)
	setFetchRecord(m, p.Fetch, ts, form)
	set := m.Set
	if form == rowFresh {
		set = m.SetOnlyVersion
	}
	if p.MIME != "" {
		set(FamilyMIME, "type", ts, []byte(p.MIME))
	}
	if hexSum != "" {
		for _, c := range pageCells(p, hexSum).stored() {
			set(FamilyContents, c.q, ts, c.v)
		}
	}
	setRendered(m, p, ts, set)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// rowFacts reads what a save needs to know of the row first: the
// contents:sha256 of its newest stored version ("" when none).
func (w *WebTable) rowFacts(ctx context.Context, key string) (newest string, err error) {
	row, err := w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.ChainFilters(
		column(FamilyContents, colSHA256), bigtable.LatestNFilter(1))))
	if err != nil {
		return "", fmt.Errorf("webtable: reading the newest version of %q: %w", key, err)
	}
	if items := row[FamilyContents]; len(items) > 0 {
		newest = string(items[0].Value)
	}
	return newest, nil
}

// SetState sets the frontier state of a URL's row at time t (whole
// milliseconds). The crawler marks a page done only after its row and its
// links are stored.
func (w *WebTable) SetState(ctx context.Context, rawURL string, state crawlstore.State, t bigtable.Timestamp) error {
	key, err := urlkey.Key(rawURL)
	if err != nil {
		return fmt.Errorf("webtable: setting state: %w", err)
	}
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colState, t, []byte(state.String()))
	if err := w.tbl.Apply(ctx, key, m); err != nil {
		return fmt.Errorf("webtable: marking %s %s: %w", rawURL, state, err)
	}
	return nil
}

// LastFetch returns the fetch record and frontier state of a URL; ok is
// false when the table knows nothing of it.
func (w *WebTable) LastFetch(ctx context.Context, rawURL string) (f crawlstore.Fetch, ok bool, err error) {
	key, err := urlkey.Key(rawURL)
	if err != nil {
		return crawlstore.Fetch{}, false, fmt.Errorf("webtable: reading fetch record: %w", err)
	}
	return w.lastFetch(ctx, key)
}

// lastFetch is LastFetch of the row key.
func (w *WebTable) lastFetch(ctx context.Context, key string) (f crawlstore.Fetch, ok bool, err error) {
	row, err := w.tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.InterleaveFilters(
		bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1)),
		bigtable.ChainFilters(bigtable.FamilyFilter(FamilyContents), bigtable.ColumnFilter("sha256"), bigtable.LatestNFilter(1)),
		bigtable.ChainFilters(bigtable.FamilyFilter(FamilyMIME), bigtable.ColumnFilter("type"), bigtable.LatestNFilter(1)),
	)))
	if err != nil {
		return crawlstore.Fetch{}, false, fmt.Errorf("webtable: reading fetch record of row %q: %w", key, err)
	}
	if len(row[FamilyFetch]) == 0 {
		return crawlstore.Fetch{}, false, nil
	}
	f, err = parseFetch(row)
	if err != nil {
		return crawlstore.Fetch{}, false, err
	}
	if sums := row[FamilyContents]; len(sums) > 0 {
		f.SHA256 = string(sums[0].Value)
	}
	if types := row[FamilyMIME]; len(types) > 0 {
		f.MediaType = string(types[0].Value)
	}
	return f, true, nil
}

// Content returns the newest stored contents:html of a URL's row; ok is
// false when none is stored.
func (w *WebTable) Content(ctx context.Context, rawURL string) (body []byte, ok bool, err error) {
	key, err := urlkey.Key(rawURL)
	if err != nil {
		return nil, false, fmt.Errorf("webtable: reading content: %w", err)
	}
	return w.content(ctx, key)
}

// content is Content of the row key.
func (w *WebTable) content(ctx context.Context, key string) (body []byte, ok bool, err error) {
	row, err := w.Get(ctx, key, Query{Column: FamilyContents + ":html"})
	if err != nil || len(row.Cells) == 0 {
		return nil, false, err
	}
	return row.Cells[0].Value, true, nil
}
