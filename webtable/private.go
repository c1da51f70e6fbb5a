package webtable

import (
	"context"
	"fmt"

	"github.com/webtable/webtable/bigtable"
)

// PrivateSeedsKey is the row of the addresses a crawl's seeds named that
// are private (loopback, a private network): one column per address
// ("host:port"), so that a resumed crawl, which has no seeds, may fetch
// from them as the crawl that had them did, and from no other. A store
// written before they were recorded gets those of its frontier's private
// hosts from [FormatPrivateSeeds]'s step.
const PrivateSeedsKey = ReservedPrefix + "meta/private-seeds"

// colRecorded is the column that a program before [FormatPrivateSeeds]
// wrote in PrivateSeedsKey's row, even with no address, to mark a store
// that records its private seeds. Only that step reads it (such a store
// needs no addresses guessed from its frontier); it is left in place,
// never written again, and is not an address.
//
// NB: the step cannot delete it: a migration killed after the delete and
// before the version is written would, run again, take the store for one
// that never recorded its seeds.
const colRecorded = "~recorded"

// PrivateSeeds returns the addresses recorded by AddPrivateSeeds (and by
// the step of FormatPrivateSeeds).
func (w *WebTable) PrivateSeeds(ctx context.Context) (addrs []string, err error) {
	row, err := w.tbl.ReadRow(ctx, PrivateSeedsKey)
	if err != nil {
		return nil, fmt.Errorf("webtable: reading the private seed addresses: %w", err)
	}
	for _, it := range row[FamilyFetch] {
		if q := qualifier(it.Column); q != colRecorded {
			addrs = append(addrs, q)
		}
	}
	return addrs, nil
}

// AddPrivateSeeds records addresses ("host:port") as those of private
// seeds.
func (w *WebTable) AddPrivateSeeds(ctx context.Context, addrs []string) error {
	if len(addrs) == 0 {
		return nil
	}
	if err := w.tbl.Apply(ctx, PrivateSeedsKey, privateSeedsMutation(addrs)); err != nil {
		return fmt.Errorf("webtable: recording the private seed addresses: %w", err)
	}
	return nil
}

// privateSeedsMutation is the write of addrs into PrivateSeedsKey's row.
func privateSeedsMutation(addrs []string) *bigtable.Mutation {
	m := bigtable.NewMutation()
	for _, a := range addrs {
		m.Set(FamilyFetch, a, FrontierTime, nil)
	}
	return m
}
