package webtable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// Sitemap hints in the frontier.
//
// A frontier entry (and a due entry) queued from a sitemap keeps what the
// sitemap said of its page (crawlstore.SitemapHint) in a second cell of
// its row, fetch:sitemap at FrontierTime, a JSON object of the fields
// given, for example
//
//	{"lastmod":"2026-11-29T08:00:00.000Z","changefreq":"daily","priority":0.8}
//
// ({} for a page a sitemap listed with none), so that a resumed run, a
// shard or a due page fetches it with its hint and stores the hint in
// the fetch record. The entry's delete takes the cell with it.
//
// NB: a new cell, which older readers skip (they read fetch:entry only):
// no format version step. An older program deletes only fetch:entry,
// leaving a row of fetch:sitemap alone, which FrontierNext deletes as
// stale.

// colSitemap is the qualifier of an entry's sitemap hint.
const colSitemap = "sitemap"

// sitemapCell is the JSON form of fetch:sitemap.
type sitemapCell struct {
	LastMod    string   `json:"lastmod,omitempty"` // formatTime
	ChangeFreq string   `json:"changefreq,omitempty"`
	Priority   *float64 `json:"priority,omitempty"`
}

// sitemapValue is the value of fetch:sitemap for h (h.Listed).
func sitemapValue(h crawlstore.SitemapHint) []byte {
	c := sitemapCell{ChangeFreq: h.ChangeFreq}
	if !h.LastMod.IsZero() {
		c.LastMod = formatTime(h.LastMod)
	}
	if h.Priority >= 0 {
		p := h.Priority
		c.Priority = &p
	}
	v, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("webtable: encoding a sitemap hint: %v", err)) // a string and a number always encode
	}
	return v
}

// parseSitemapValue reads a fetch:sitemap value: the hint, Listed.
func parseSitemapValue(v []byte) (crawlstore.SitemapHint, error) {
	var c sitemapCell
	d := json.NewDecoder(bytes.NewReader(v))
	if err := d.Decode(&c); err != nil {
		return crawlstore.SitemapHint{}, fmt.Errorf("column %s:%s holds %q: %w", FamilyFetch, colSitemap, v, err)
	}
	if d.More() {
		return crawlstore.SitemapHint{}, fmt.Errorf("column %s:%s holds %q: more than one JSON value", FamilyFetch, colSitemap, v)
	}
	h := crawlstore.SitemapHint{Listed: true, ChangeFreq: c.ChangeFreq, Priority: -1}
	if c.Priority != nil {
		if *c.Priority < 0 || *c.Priority > 1 {
			return crawlstore.SitemapHint{}, fmt.Errorf("column %s:%s holds priority %v: want 0 to 1", FamilyFetch, colSitemap, *c.Priority)
		}
		h.Priority = *c.Priority
	}
	if c.LastMod != "" {
		t, err := time.Parse(time.RFC3339Nano, c.LastMod)
		if err != nil {
			return crawlstore.SitemapHint{}, fmt.Errorf("column %s:%s holds lastmod %q: %w", FamilyFetch, colSitemap, c.LastMod, err)
		}
		h.LastMod = t
	}
	return h, nil
}

// errHintOnly marks a frontier row that holds a sitemap hint and no
// entry: what an older program's delete of the entry leaves.
var errHintOnly = errors.New("a sitemap hint without its entry")

// readEntryCells reads the cells of an entry's row (frontier or due)
// into e: fetch:entry and fetch:sitemap.
func readEntryCells(e *crawlstore.Entry, r bigtable.Row) error {
	found, hint := false, false
	for _, it := range r[FamilyFetch] {
		switch qualifier(it.Column) {
		case colEntry:
			if err := parseEntryValue(e, string(it.Value)); err != nil {
				return err
			}
			found = true
		case colSitemap:
			h, err := parseSitemapValue(it.Value)
			if err != nil {
				return err
			}
			e.Sitemap, hint = h, true
		}
	}
	switch {
	case !found && hint:
		return errHintOnly
	case !found:
		return fmt.Errorf("no %s:%s cell", FamilyFetch, colEntry)
	}
	return nil
}

// dropListedEntry is the delete of a frontier entry queued from a
// sitemap: of its two known cells, reading nothing.
func dropListedEntry() *bigtable.Mutation {
	m := dropEntry()
	m.DeleteOnlyVersion(FamilyFetch, colSitemap, FrontierTime)
	return m
}

// entryDrop is the delete of the frontier entries of a fetch of a page
// with hint h.
func entryDrop(h crawlstore.SitemapHint) func() *bigtable.Mutation {
	if h.Listed {
		return dropListedEntry
	}
	return dropEntry
}
