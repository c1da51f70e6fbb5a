package webtable

import (
	"context"
	"errors"
	"fmt"

	"github.com/webtable/webtable/bigtable"
)

// familyLister is a Store that reports its families' GC policies (both
// the embedded store and the Cloud Bigtable adapter do).
type familyLister interface {
	Families(ctx context.Context, table string) (map[string]bigtable.GCPolicy, error)
}

// listFamilies returns the GC policy of each family of table, nil when db
// cannot list them (then ensureFamily creates every family and sets every
// policy).
func listFamilies(ctx context.Context, db Store, table string) (map[string]bigtable.GCPolicy, error) {
	fl, ok := db.(familyLister)
	if !ok {
		return nil, nil
	}
	have, err := fl.Families(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("webtable: listing the families of %s: %w", table, err)
	}
	return have, nil
}

// ensureFamily creates family fam of table unless have (listFamilies)
// holds it, and sets its GC policy unless have shows that policy in
// force. Another process (a shard) may create it at the same moment.
//
// NB: setting a policy makes the embedded store sweep the whole table (so
// that cells a stricter policy hid cannot reappear): seconds per 10,000
// pages, paid by every crawl that opens the store, a resume first. Hence
// a policy already in force is left alone.
func ensureFamily(ctx context.Context, db Store, table string, have map[string]bigtable.GCPolicy, fam string, policy bigtable.GCPolicy) error {
	p, exists := have[fam]
	if !exists {
		err := db.CreateColumnFamily(ctx, table, fam)
		if err != nil && !errors.Is(err, bigtable.ErrExists) {
			return fmt.Errorf("webtable: creating family %s: %w", fam, err)
		}
	}
	if exists && p != nil && p.String() == policy.String() {
		return nil
	}
	if err := db.SetGCPolicy(ctx, table, fam, policy); err != nil {
		return fmt.Errorf("webtable: setting GC policy of %s: %w", fam, err)
	}
	return nil
}
