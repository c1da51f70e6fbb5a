package difftest

import (
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable/server"
)

// TestDifferentialServer runs the sequences on bttest and on our store
// behind bigtable/server, both reached through the real Cloud Bigtable Go
// client: the server's translation of every request and response must not
// change an answer.
func TestDifferentialServer(t *testing.T) {
	r := newReference(t)
	s := newOurStore(t)
	srv, err := server.Listen(s.db, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("server.Listen: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(5 * time.Second); err != nil {
			t.Errorf("server Close: %v", err)
		}
	})
	ours := newClientAt(t, srv.Addr())
	ours.keepTables = true
	runMany(t, pair{want: refFactory(r), got: refFactory(ours), wantLabel: "bttest", gotLabel: "ours, through bigtable/server"}, 100)
}
