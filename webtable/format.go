package webtable

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/webtable/webtable/bigtable"
)

// FormatVersion is the version of the WebTable's storage format: which
// forms of its cells the store may hold. It is stored in the row
// [FormatKey]; a store without that row (every store written before
// versions existed) is [FormatOriginal], unless it holds no row at all. Each version is one step of
// [WebTable.Migrate], which rewrites what the version before it could hold
// into what it holds, and says so in its doc below. Readers read only
// [FormatNewest]'s forms, plus those of [FormatNewest]-1, whose step is
// one that readers cannot see (see [WebTable.Migrate]).
//
// NB: as pebble's format major versions: a version is a promise about the
// whole store, so readers need no per-row detection of older forms.
type FormatVersion int

const (
	// FormatOriginal is a store written before format versions existed:
	// it may hold every old form the versions below rewrite.
	FormatOriginal FormatVersion = 1
	// FormatFrontierRows: every queued page has a frontier entry of its own
	// (see [FrontierPrefix]). Before it, a queued page could be known by
	// its row only (fetch:url, fetch:depth and fetch:state queued, at
	// [FrontierTime]); the step writes its entry, unless the store holds
	// the marker [FrontierMarkerKey], which said that it was done.
	FormatFrontierRows FormatVersion = 2
	// FormatEntryCell: a frontier entry is one cell, fetch:entry
	// ("<depth> <chain> <url>"). Before it, an entry could be three cells,
	// fetch:url, fetch:depth and fetch:chain (left out when 0); the step
	// rewrites each such entry in one atomic write of its row.
	FormatEntryCell FormatVersion = 3
	// FormatFetchRecord: a page's fetch family is fetch:record (one JSON
	// object) and fetch:state. Before it, a record could be a column per
	// field (fetch:url, fetch:status, fetch:time, ...); the step writes
	// those fields as fetch:record at their time and deletes the columns,
	// in one atomic write of the row. A row that was only queued (fetch:url
	// and fetch:depth beside its state, which its frontier entry holds
	// since FormatFrontierRows) keeps its state only.
	FormatFetchRecord FormatVersion = 4
	// FormatContentsMeta: a contents:html version's status, truncation, URL
	// and headers are one cell, contents:meta. Before it, they could be
	// contents:status, contents:truncated, contents:url and
	// contents:headers; the step packs them into contents:meta at their
	// time and deletes them, in one atomic write of the row.
	FormatContentsMeta FormatVersion = 5
	// FormatNoMarker: the frontier marker [FrontierMarkerKey], which the
	// format version replaces, is deleted. Readers never read it, so they
	// read a store of the version before as well.
	FormatNoMarker FormatVersion = 6
	// FormatPrivateSeeds: [PrivateSeedsKey] holds the private addresses a
	// crawl may fetch from. Before it, a store could be written before
	// crawls recorded their private seeds (its row lacks the column
	// colRecorded); the step records the dial addresses of every private
	// host of its frontier (see crawlstore.PrivateHostAddrs), as the
	// crawls that queued them fetched them. A store whose row has that
	// column recorded its seeds already and is left as it is. Readers
	// never read the row, so they read a store of the version before as
	// well.
	FormatPrivateSeeds FormatVersion = 7

	// FormatNewest is the version this program writes: new stores are
	// created in it, and crawl migrates older ones to it.
	FormatNewest = FormatPrivateSeeds
	// FormatOldestReadable is the oldest version readers read: a store
	// older than it must be migrated first (by a crawl).
	FormatOldestReadable = FormatNewest - 1
)

// FormatKey is the row that holds the store's [FormatVersion] (in decimal,
// in fetch:version at [FrontierTime]).
const FormatKey = ReservedPrefix + "meta/format"

// colVersion is the qualifier of the format version in FormatKey's row.
const colVersion = "version"

// Errors of the format version, tested with errors.Is.
var (
	// ErrFormatTooNew means the store was written by a newer program: it
	// is refused and never written.
	ErrFormatTooNew = errors.New("webtable: the store's format is newer than this program's")
	// ErrFormatTooOld means a reader met a store older than
	// FormatOldestReadable: a crawl migrates it.
	ErrFormatTooOld = errors.New("webtable: the store's format is too old to read")
)

// FormatError reports a store's format version that this program cannot
// use; it wraps ErrFormatTooNew or ErrFormatTooOld.
type FormatError struct {
	Store   FormatVersion // the store's version
	Program FormatVersion // FormatNewest
	Err     error         // ErrFormatTooNew or ErrFormatTooOld
}

func (e *FormatError) Error() string {
	if errors.Is(e.Err, ErrFormatTooNew) {
		return fmt.Sprintf("webtable: the store is in format version %d, newer than this program's %d: use the newer program that wrote it", e.Store, e.Program)
	}
	return fmt.Sprintf("webtable: the store is in format version %d; readers read versions %d and %d, and a crawl migrates older ones", e.Store, FormatOldestReadable, e.Program)
}

func (e *FormatError) Unwrap() error { return e.Err }

// String names the version as its constant does.
func (v FormatVersion) String() string {
	for _, s := range formatSteps {
		if s.to == v {
			return s.name
		}
	}
	if v == FormatOriginal {
		return "FormatOriginal"
	}
	return "FormatVersion(" + strconv.Itoa(int(v)) + ")"
}

// readFormat reads the store's format version: when the row is absent,
// FormatOriginal, or FormatNewest for a table without rows.
//
// NB: a table without rows holds no old form, and is what a crawl killed
// between creating the table and writing its version leaves: readers read
// it, and it needs no migration.
func readFormat(ctx context.Context, tbl Table) (FormatVersion, error) {
	r, err := tbl.ReadRow(ctx, FormatKey, bigtable.RowFilter(bigtable.ChainFilters(column(FamilyFetch, colVersion), bigtable.LatestNFilter(1))))
	if err != nil {
		return 0, fmt.Errorf("webtable: reading the format version: %w", err)
	}
	items := r[FamilyFetch]
	if len(items) == 0 {
		empty := true
		err := tbl.ReadRows(ctx, bigtable.InfiniteRange(""), func(bigtable.Row) bool {
			empty = false
			return false
		}, bigtable.LimitRows(1), bigtable.RowFilter(bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())))
		switch {
		case err != nil:
			return 0, fmt.Errorf("webtable: reading the format version: %w", err)
		case empty:
			return FormatNewest, nil
		}
		return FormatOriginal, nil
	}
	n, err := strconv.Atoi(string(items[0].Value))
	if err != nil || n < int(FormatOriginal) {
		return 0, fmt.Errorf("webtable: row %q column %s holds %q: not a format version", FormatKey, items[0].Column, items[0].Value)
	}
	return FormatVersion(n), nil
}

// formatMutation is the write of format version v.
func formatMutation(v FormatVersion) *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.Set(FamilyFetch, colVersion, FrontierTime, []byte(strconv.Itoa(int(v))))
	return m
}

// writeFormat records that the store is in format version v.
func writeFormat(ctx context.Context, tbl Table, v FormatVersion) error {
	if err := tbl.Apply(ctx, FormatKey, formatMutation(v)); err != nil {
		return fmt.Errorf("webtable: writing format version %d: %w", v, err)
	}
	return nil
}

// checkFormat reads the store's version and refuses one newer than
// FormatNewest, and, for a reader, one older than FormatOldestReadable.
func checkFormat(ctx context.Context, tbl Table, reader bool) (FormatVersion, error) {
	v, err := readFormat(ctx, tbl)
	switch {
	case err != nil:
		return 0, err
	case v > FormatNewest:
		return v, &FormatError{Store: v, Program: FormatNewest, Err: ErrFormatTooNew}
	case reader && v < FormatOldestReadable:
		return v, &FormatError{Store: v, Program: FormatNewest, Err: ErrFormatTooOld}
	}
	return v, nil
}

// Format returns the store's format version (FormatOriginal for a store
// without one).
func (w *WebTable) Format(ctx context.Context) (FormatVersion, error) {
	return readFormat(ctx, w.tbl)
}
