package webtable

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

var _ crawlstore.DueKeeper = (*CrawlStore)(nil)

// DueCounts counts the due entries of a continuous crawl (see due.go).
type DueCounts struct {
	Entries int64 // due entries (pages waiting to be fetched again)
	Now     int64 // of them, due at or before the time asked about
	Day     int64 // of them, due within a day of it (Now included)
}

// DueCounts counts the due entries by their due time relative to now,
// reading keys only.
func (w *WebTable) DueCounts(ctx context.Context, now time.Time) (DueCounts, error) {
	var c DueCounts
	start, end := bucketBounds(DuePrefix, 0, urlkey.Buckets)
	day := now.Add(24 * time.Hour)
	err := w.tbl.ReadRows(ctx, bigtable.NewRange(start, end), func(r bigtable.Row) bool {
		_, due, err := ParseDueKey(r.Key())
		if err != nil {
			return true // not counted
		}
		c.Entries++
		if !due.After(now) {
			c.Now++
		}
		if !due.After(day) {
			c.Day++
		}
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())))
	if err != nil {
		return c, fmt.Errorf("webtable: counting due entries: %w", err)
	}
	return c, nil
}

// RateHistogram counts the pages of a continuous crawl by their estimated
// change rate (fetch:record's rate), one bucket per decade of changes a
// day.
type RateHistogram struct {
	// Unknown counts pages with a change history but no estimate yet (one
	// fetch, or an odd history); Never those estimated never to change.
	Unknown, Never int64
	// Decades maps d to the pages of 10^d <= changes a day < 10^(d+1).
	Decades map[int]int64
}

// add counts one page's change history (none: not counted).
func (h *RateHistogram) add(c crawlstore.Change) {
	switch {
	case c == (crawlstore.Change{}):
	case c.Rate < 0:
		h.Unknown++
	case c.Rate == 0:
		h.Never++
	default:
		if h.Decades == nil {
			h.Decades = map[int]int64{}
		}
		h.Decades[int(math.Floor(math.Log10(c.Rate*86400)))]++
	}
}

// Pages is how many pages the histogram counts.
func (h RateHistogram) Pages() int64 {
	n := h.Unknown + h.Never
	for _, v := range h.Decades {
		n += v
	}
	return n
}
