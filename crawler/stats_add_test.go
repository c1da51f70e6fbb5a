package crawler

import (
	"reflect"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestStatsAdd: counts add up, the state is the second run's, and the
// first run's map is left as it was.
func TestStatsAdd(t *testing.T) {
	a := Stats{Fetched: 1, NewVersions: 1, Errors: 1, ErrorsByKind: map[crawlstore.ErrorKind]int64{crawlstore.KindHTTP: 1},
		ByStatusClass: [6]int64{2: 1}, BadEntries: 1, Bytes: 10, Elapsed: time.Second, Idle: time.Second, Queued: 9, Done: true}
	b := Stats{Fetched: 2, Unchanged: 2, Redirects: 1, Traps: 1, Retries: 3, Errors: 2,
		ErrorsByKind:  map[crawlstore.ErrorKind]int64{crawlstore.KindHTTP: 1, crawlstore.KindRobots: 1},
		ByStatusClass: [6]int64{2: 2, 4: 1}, BadEntries: 2, Bytes: 5, Elapsed: 2 * time.Second, Idle: time.Second, IdleReady: time.Second, Queued: 4, InFlight: 1}
	got := a.Add(b)
	want := Stats{Fetched: 3, NewVersions: 1, Unchanged: 2, Redirects: 1, Traps: 1, Retries: 3, Errors: 3,
		ErrorsByKind:  map[crawlstore.ErrorKind]int64{crawlstore.KindHTTP: 2, crawlstore.KindRobots: 1},
		ByStatusClass: [6]int64{2: 3, 4: 1}, BadEntries: 3, Bytes: 15, Elapsed: 3 * time.Second,
		Idle: 2 * time.Second, IdleReady: time.Second, Queued: 4, InFlight: 1, Done: false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Add =\n%+v\nwant\n%+v", got, want)
	}
	if a.ErrorsByKind[crawlstore.KindHTTP] != 1 || len(a.ErrorsByKind) != 1 {
		t.Errorf("Add changed the first run's ErrorsByKind to %v", a.ErrorsByKind)
	}
}
