package server

import (
	"testing"

	"github.com/webtable/webtable/bigtable/bigtabletest"
)

// TestConformance runs bigtabletest's suite on the store behind the
// server, with the Cloud Bigtable Go client (through bigtable/cloud) as the
// caller. The store's features but microseconds: the Go client truncates
// timestamps to milliseconds before they leave it.
func TestConformance(t *testing.T) {
	feat := bigtabletest.Badger
	feat.Micros = false
	bigtabletest.RunConformance(t, feat, func(t *testing.T) bigtabletest.Store {
		_, srv := serve(t)
		cdb := openClient(t, srv.Addr())
		return bigtabletest.Adapt(cdb, cdb.Open)
	})
}
