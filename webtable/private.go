package webtable

import (
	"context"
	"fmt"

	"github.com/webtable/webtable/bigtable"
)

// PrivateSeedsKey is the row of the addresses a crawl's seeds named that
// are private (loopback, a private network): one column per address
// ("host:port"), so that a resumed crawl, which has no seeds, may fetch
// from them as the crawl that had them did, and from no other.
const PrivateSeedsKey = ReservedPrefix + "meta/private-seeds"

// colRecorded marks the row written, even with no address: a store
// without it was written before private seeds were recorded.
const colRecorded = "~recorded"

// PrivateSeeds returns the addresses recorded by AddPrivateSeeds, and
// whether the store records them at all (false for a store no crawl of
// this version has run on).
func (w *WebTable) PrivateSeeds(ctx context.Context) (addrs []string, recorded bool, err error) {
	row, err := w.tbl.ReadRow(ctx, PrivateSeedsKey)
	if err != nil {
		return nil, false, fmt.Errorf("webtable: reading the private seed addresses: %w", err)
	}
	for _, it := range row[FamilyFetch] {
		if q := qualifier(it.Column); q == colRecorded {
			recorded = true
		} else {
			addrs = append(addrs, q)
		}
	}
	return addrs, recorded, nil
}

// AddPrivateSeeds records addresses ("host:port") as those of private
// seeds, and that the store records them (also with none).
func (w *WebTable) AddPrivateSeeds(ctx context.Context, addrs []string) error {
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colRecorded, FrontierTime, nil)
	for _, a := range addrs {
		m.Set(FamilyFetch, a, FrontierTime, nil)
	}
	if err := w.tbl.Apply(ctx, PrivateSeedsKey, m); err != nil {
		return fmt.Errorf("webtable: recording the private seed addresses: %w", err)
	}
	return nil
}
