package webtable

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// TestTimesAtTheEdges: a capture dated before 1970 is refused with
// ErrTimeRange, not stored at the import's own time (1969-12-31T23:59:59.999999Z
// is timestamp -1, the store's "now") nor refused by the store in a way
// that names no time; a read at a time past MaxTimestamp is refused, and one
// at MaxTimestamp sees the newest version.
func TestTimesAtTheEdges(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	for _, at := range []time.Time{
		time.Date(1969, 12, 31, 23, 59, 59, 999999e3, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		c := &Capture{URL: "http://www.cnn.com/old", Time: at, Status: 200, MIME: "text/html", Body: []byte("old")}
		if _, err := w.Import(ctx, c); !errors.Is(err, ErrTimeRange) {
			t.Errorf("Import of a capture dated %s = %v, want ErrTimeRange", at.Format(time.RFC3339Nano), err)
		}
	}
	if row, err := w.Get(ctx, "com.cnn.www/old", Query{}); err != nil || len(row.Cells) != 0 {
		t.Errorf("after refused imports, the row holds %d cells (%v), want none", len(row.Cells), err)
	}
	c := &Capture{URL: "http://www.cnn.com/", Time: t0, Status: 200, MIME: "text/html", Body: []byte("now")}
	if _, err := w.Import(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, at := range []Timestamp{math.MaxInt64, MaxTimestamp + 1, -5} {
		if _, err := w.Get(ctx, "com.cnn.www/", Query{Column: "contents:html", At: at}); !errors.Is(err, ErrTimeRange) {
			t.Errorf("Get at %d = %v, want ErrTimeRange", at, err)
		}
		if err := w.Captures(ctx, nil, Selection{At: at}, func(*Capture) error { return nil }); !errors.Is(err, ErrTimeRange) {
			t.Errorf("Captures at %d = %v, want ErrTimeRange", at, err)
		}
	}
	row, err := w.Get(ctx, "com.cnn.www/", Query{Column: "contents:html", At: MaxTimestamp})
	if err != nil || len(row.Cells) != 1 || string(row.Cells[0].Value) != "now" {
		t.Errorf("Get at MaxTimestamp = %+v, %v, want the page", row, err)
	}
	if _, err := CheckedTimestamp(MaxTimestamp.Time().Add(time.Microsecond)); !errors.Is(err, ErrTimeRange) {
		t.Errorf("CheckedTimestamp just past MaxTimestamp = %v, want ErrTimeRange", err)
	}
	if ts, err := CheckedTimestamp(time.Unix(0, 0)); err != nil || ts != 0 {
		t.Errorf("CheckedTimestamp(1970-01-01) = %d, %v, want 0", ts, err)
	}
}
