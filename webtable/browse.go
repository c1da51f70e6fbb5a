package webtable

import (
	"context"
	"fmt"
	"slices"
)

// FamilyInfo is a column family of the WebTable and its garbage-collection
// policy, the rule that says which old versions are dropped.
type FamilyInfo struct {
	Name string
	// GCPolicy is the policy in Cloud Bigtable's notation ("versions() > 3":
	// keep the newest 3 versions); "" when the store does not report it.
	GCPolicy string
}

// Table is the name of the bigtable table that holds the WebTable.
func (w *WebTable) Table() string { return w.name }

// Schema lists the tables of the store, sorted, and the WebTable's column
// families with their GC policies, in the order of [Families], then the
// derived families the store holds ([DerivedFamilies]).
func (w *WebTable) Schema(ctx context.Context) (tables []string, families []FamilyInfo, err error) {
	tables, err = w.store.Tables(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("webtable: listing tables: %w", err)
	}
	slices.Sort(tables)
	policies, err := listFamilies(ctx, w.store, w.name)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range Families {
		fi := FamilyInfo{Name: f}
		if p, ok := policies[f]; ok && p != nil {
			fi.GCPolicy = p.String()
		}
		families = append(families, fi)
	}
	// The optional and derived families, once a crawl or cmd/index
	// created them.
	for _, f := range append(OptionalFamilies[:len(OptionalFamilies):len(OptionalFamilies)], DerivedFamilies...) {
		if p, ok := policies[f]; ok {
			fi := FamilyInfo{Name: f}
			if p != nil {
				fi.GCPolicy = p.String()
			}
			families = append(families, fi)
		}
	}
	return tables, families, nil
}
