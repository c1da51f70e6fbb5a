package webtable

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
)

// Held-back origins: what a crawl left queued on purpose, and why.
//
// At the end of a run the crawl records, for each origin (scheme, host and
// port: "https://docs.python.org") whose entries it left queued on purpose,
// one row
//
//	~origin/<origin>   fetch:hold = {"reason":"unreachable","detail":"...","until":"...","entries":503,"time":"..."}
//
// and deletes the rows of its origins that it no longer held back, so the
// rows say what the last run of each origin's shard found. query stats
// --by-origin reads them beside the frontier.
const (
	// OriginPrefix starts the held-back origin rows.
	OriginPrefix = ReservedPrefix + "origin/"
	colHold      = "hold"
)

// OriginHold is an origin that a crawl held back.
type OriginHold struct {
	// Origin is "scheme://host[:port]".
	Origin string `json:"-"`
	// Reason says why its entries were left queued; Detail gives the last
	// error, "" when there is none.
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	// Until is when it may be tried again; zero: by the next run.
	Until time.Time `json:"until,omitzero"`
	// Entries counts the entries the run left queued for it.
	Entries int64 `json:"entries"`
	// Time is when the run recorded it.
	Time time.Time `json:"time"`
}

// originKey is the row of origin.
func originKey(origin string) string { return OriginPrefix + origin }

// OriginHost returns the host (url.URL.Host) of an origin.
func OriginHost(origin string) string {
	_, host, _ := strings.Cut(origin, "://")
	return host
}

// OriginHolds reads every held-back origin row, in key order. A row that
// cannot be read is reported to bad and skipped.
func (w *WebTable) OriginHolds(ctx context.Context, bad func(BadEntry)) ([]OriginHold, error) {
	var out []OriginHold
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(OriginPrefix), func(r bigtable.Row) bool {
		h, err := parseOriginHold(r)
		if err != nil {
			if bad != nil {
				bad(BadEntry{Key: r.Key(), Err: err})
			}
			return true
		}
		out = append(out, h)
		return true
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		return nil, fmt.Errorf("webtable: reading held-back origins: %w", err)
	}
	return out, nil
}

func parseOriginHold(r bigtable.Row) (OriginHold, error) {
	h := OriginHold{Origin: strings.TrimPrefix(r.Key(), OriginPrefix)}
	for _, it := range r[FamilyFetch] {
		if qualifier(it.Column) == colHold {
			if err := json.Unmarshal(it.Value, &h); err != nil {
				return h, fmt.Errorf("column %s:%s: %w", FamilyFetch, colHold, err)
			}
			return h, nil
		}
	}
	return h, fmt.Errorf("no %s:%s column", FamilyFetch, colHold)
}

// SetOriginHolds records holds as the held-back origins of a run that
// crawled the hosts mine says yes to (nil: every host), replacing what an
// earlier run recorded for those hosts: their other rows are deleted.
func (w *WebTable) SetOriginHolds(ctx context.Context, holds []OriginHold, mine func(host string) bool) error {
	old, err := w.OriginHolds(ctx, nil)
	if err != nil {
		return err
	}
	keep := make(map[string]bool, len(holds))
	var b batch
	for _, h := range holds {
		v, err := json.Marshal(h)
		if err != nil {
			return fmt.Errorf("webtable: recording held-back origin %s: %w", h.Origin, err)
		}
		m := bigtable.NewMutation()
		m.Set(FamilyFetch, colHold, timestamp(h.Time), v)
		b.add(originKey(h.Origin), m)
		keep[h.Origin] = true
	}
	for _, h := range old {
		if !keep[h.Origin] && (mine == nil || mine(OriginHost(h.Origin))) {
			b.add(originKey(h.Origin), deleteRow())
		}
	}
	if err := w.applyBatch(ctx, &b); err != nil {
		return fmt.Errorf("webtable: recording held-back origins: %w", err)
	}
	return nil
}

// OriginCount is the queued frontier entries of one origin.
type OriginCount struct {
	Origin string
	Queued int64
}

// QueuedByOrigin counts the frontier entries of pages still queued
// ([WebTable.Queued]), by origin, most first. It reads the whole frontier
// and the state of each entry's row, in batches.
func (w *WebTable) QueuedByOrigin(ctx context.Context) ([]OriginCount, error) {
	counts := map[string]int64{}
	err := w.Queued(ctx, func(e crawlstore.Entry) bool {
		counts[originOfURL(e.URL)]++
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("webtable: counting the frontier by origin: %w", err)
	}
	out := make([]OriginCount, 0, len(counts))
	for o, n := range counts {
		out = append(out, OriginCount{Origin: o, Queued: n})
	}
	slices.SortFunc(out, func(a, b OriginCount) int {
		return cmp.Or(cmp.Compare(b.Queued, a.Queued), cmp.Compare(a.Origin, b.Origin))
	})
	return out, nil
}

// originOfURL is the origin of a canonical URL: "scheme://host[:port]".
func originOfURL(canonical string) string {
	scheme, rest, ok := strings.Cut(canonical, "://")
	if !ok {
		return canonical
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + "://" + rest
}
