package stores

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/webtable"
)

// TestOpenMigratedFails: a store of an older format version whose
// migration fails (here: interrupted at once) gives a *MigrateError naming
// the store, and is closed again (it opens once more).
func TestOpenMigratedFails(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	w, err := Open(ctx, dir, ForCrawl, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bigtable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := bigtable.NewMutation()
	m.Set(webtable.FamilyFetch, "version", webtable.FrontierTime, []byte(strconv.Itoa(int(webtable.FormatNewest-1))))
	if err := db.Open(webtable.TableName).Apply(ctx, webtable.FormatKey, m); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (*webtable.WebTable, error) {
		return Open(ctx, dir, ForCrawl, webtable.Options{})
	}
	stopped, stop := context.WithCancel(ctx)
	_, err = OpenMigrated(stopped, dir, io.Discard, func(context.Context) (*webtable.WebTable, error) {
		defer stop() // opened, then interrupted before the migration
		return open(ctx)
	})
	var me *MigrateError
	if !errors.As(err, &me) || me.DB != dir {
		t.Fatalf("OpenMigrated of an interrupted migration = %v, want a *MigrateError for %s", err, dir)
	}
	w, err = open(ctx)
	if err != nil {
		t.Fatalf("the store stayed open after the failed migration: %v", err)
	}
	w.Close()
}
