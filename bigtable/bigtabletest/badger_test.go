package bigtabletest_test

import (
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/bigtabletest"
)

// TestConformanceBadger runs the suite on package bigtable's own store.
func TestConformanceBadger(t *testing.T) {
	bigtabletest.RunConformance(t, bigtabletest.Badger, func(t *testing.T) bigtabletest.Store {
		db, err := bigtable.Open(t.TempDir())
		if err != nil {
			t.Fatalf("bigtable.Open: %v", err)
		}
		t.Cleanup(func() {
			if err := db.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return bigtabletest.Adapt(db, db.Open)
	})
}
