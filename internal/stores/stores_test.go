package stores

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	emulatorpkg "github.com/webtable/webtable/internal/emulator"
	"github.com/webtable/webtable/webtable"
)

// emulator starts Google's in-process Bigtable emulator and points
// BIGTABLE_EMULATOR_HOST at it, as a user would with "gcloud beta emulators
// bigtable start".
func emulator(t *testing.T) { emulatorpkg.Start(t) }

// roundTrip writes a page through Open(ForCrawl) and reads it back through
// Open(ForRead): the same calls on either store.
func roundTrip(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	if _, err := Open(ctx, db, ForRead, webtable.Options{}); !errors.Is(err, webtable.ErrNoWebTable) && !errors.Is(err, webtable.ErrNoStore) {
		t.Errorf("Open(ForRead) before any crawl = %v, want ErrNoWebTable or ErrNoStore", err)
	}
	w, err := Open(ctx, db, ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatalf("Open(%s, ForCrawl): %v", db, err)
	}
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	p := &webtable.Page{Fetch: crawlstore.Fetch{URL: "http://www.cnn.com/", Status: 200, Time: at}, MIME: "text/html", KeepBody: true, Body: []byte("<p>hello")}
	if _, err := w.RecordFetch(ctx, p); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := Open(ctx, db, ForRead, webtable.Options{})
	if err != nil {
		t.Fatalf("Open(%s, ForRead): %v", db, err)
	}
	defer r.Close()
	vs, err := r.Versions(ctx, "com.cnn.www/")
	if err != nil || len(vs) != 1 || vs[0].Timestamp.Time().UTC() != at || vs[0].Size != len("<p>hello") {
		t.Errorf("Versions on %s = %+v, %v; want one version at %v", db, vs, err, at)
	}
	row, err := r.Page(ctx, "http://www.cnn.com/", 0)
	if err != nil || len(row.Cells) == 0 {
		t.Errorf("Page on %s = %+v, %v", db, row, err)
	}
	tablets, err := r.Tablets(ctx)
	if err != nil || len(tablets) == 0 || tablets[0].Start != "" || tablets[len(tablets)-1].End != "" {
		t.Errorf("Tablets on %s = %+v, %v; want tablets covering every key", db, tablets, err)
	}
}

func TestEmbeddedStore(t *testing.T) {
	roundTrip(t, filepath.Join(t.TempDir(), "webtable.db"))
}

func TestCloudBigtableEmulator(t *testing.T) {
	emulator(t)
	roundTrip(t, "bigtable://test-project/test-instance")
}

func TestCloudBigtableNamedTable(t *testing.T) {
	emulator(t)
	ctx := context.Background()
	w, err := Open(ctx, "bigtable://p/i/pages", ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := Open(ctx, "bigtable://p/i", ForRead, webtable.Options{}); !errors.Is(err, webtable.ErrNoWebTable) {
		t.Errorf("the default table exists though only 'pages' was created: %v", err)
	}
	r, err := Open(ctx, "bigtable://p/i/pages", ForRead, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

func TestBadURL(t *testing.T) {
	for _, db := range []string{"bigtable://", "bigtable://p", "bigtable://p/i/t/x", "bigtable://p/i/bad table"} {
		if _, err := Open(context.Background(), db, ForCrawl, webtable.Options{}); err == nil {
			t.Errorf("Open(%q, ForCrawl): no error", db)
		}
	}
}

// TestReadNeverCreates: opening a missing directory for reading says so
// and creates nothing.
func TestReadNeverCreates(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Open(context.Background(), missing, ForRead, webtable.Options{}); !errors.Is(err, webtable.ErrNoStore) {
		t.Errorf("Open(missing directory, ForRead) = %v, want webtable.ErrNoStore", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(ForRead) created %s", missing)
	}
}
