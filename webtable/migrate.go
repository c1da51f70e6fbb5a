package webtable

import (
	"context"
	"fmt"
	"slices"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// formatStep is the migration to one format version from the one before.
// Its run rewrites every row that may hold the older form, each row in one
// atomic write, in bulk writes of migrateBatchRows rows.
//
// NB: every step must be idempotent: a migration stopped in a step (a
// kill) runs the whole step again, over rows it already rewrote. A step
// that finds a row in the newer form leaves it, and one that writes new
// rows writes them under the same keys each time (see migrateFrontierRows).
type formatStep struct {
	to   FormatVersion
	name string
	run  func(ctx context.Context, m *migration) error
}

// formatSteps are the steps of Migrate, in order: step i migrates to
// version i+2 (FormatOriginal is 1).
var formatSteps = []formatStep{
	{FormatFrontierRows, "FormatFrontierRows", migrateFrontierRows},
	{FormatEntryCell, "FormatEntryCell", migrateEntryCell},
	{FormatFetchRecord, "FormatFetchRecord", migrateFetchRecord},
	{FormatContentsMeta, "FormatContentsMeta", migrateContentsMeta},
	{FormatNoMarker, "FormatNoMarker", migrateNoMarker},
	{FormatPrivateSeeds, "FormatPrivateSeeds", migratePrivateSeeds},
}

// migrateBatchRows bounds one bulk write of a migration (a variable for
// the tests).
var migrateBatchRows = frontierBatchRows

// migrateHook, when not nil, is called after each bulk write of a step
// (versionWritten false) and after each step's version is written (true);
// an error stops Migrate there, as a kill would (tests only).
var migrateHook func(step FormatVersion, versionWritten bool) error

// MigrateStep is what one step of [WebTable.Migrate] did.
type MigrateStep struct {
	To   FormatVersion // the version the store is in after the step
	Rows int           // rows the step wrote (entries, for FormatFrontierRows)
	// Allowed lists the dial addresses of the private hosts the store had
	// queued, which its crawls may go on fetching (FormatPrivateSeeds).
	Allowed []string
}

// Migrate brings a store older than [FormatNewest] to it, one version at a
// time, in order (see [FormatVersion] for what each step rewrites), and
// returns the version the store was in. A store in FormatNewest is left
// alone; one newer is refused (see [New]).
//
// Each step reads the rows that may hold the older form, rewrites each in
// one atomic write, and then records its version, so a migration that
// stops (a kill, an error) is finished by running Migrate again: it runs
// the step it stopped in again, which finds the rows it rewrote in the
// newer form. Rows that cannot be read are passed to bad (when not nil),
// once each, and left as they are; done (when not nil) is called after
// each step.
//
// Migrate assumes that nothing else writes to the store meanwhile (a crawl
// runs it when it opens the store, before it crawls).
func (w *WebTable) Migrate(ctx context.Context, done func(MigrateStep), bad func(BadEntry)) (FormatVersion, error) {
	from, err := checkFormat(ctx, w.tbl, false)
	if err != nil {
		return from, err
	}
	reported := map[string]bool{} // NB: bad rows only, which stay few
	once := func(b BadEntry) {
		if bad != nil && !reported[b.Key] {
			reported[b.Key] = true
			bad(b)
		}
	}
	for _, s := range formatSteps {
		if s.to <= from {
			continue
		}
		m := &migration{w: w, step: s.to, bad: once}
		if err := s.run(ctx, m); err != nil {
			return from, fmt.Errorf("webtable: migrating to format version %d (%s): %w", s.to, s.name, err)
		}
		if err := m.flush(ctx); err != nil {
			return from, fmt.Errorf("webtable: migrating to format version %d (%s): %w", s.to, s.name, err)
		}
		if err := writeFormat(ctx, w.tbl, s.to); err != nil {
			return from, err
		}
		if migrateHook != nil {
			if err := migrateHook(s.to, true); err != nil {
				return from, err
			}
		}
		if done != nil {
			done(MigrateStep{To: s.to, Rows: m.rows, Allowed: m.allowed})
		}
	}
	return from, nil
}

// migration is one step's writes in progress.
type migration struct {
	w    *WebTable
	step FormatVersion
	bad  func(BadEntry)
	b    batch
	rows int
	// allowed is what the step reports as MigrateStep.Allowed.
	allowed []string
}

// add queues the write of one row, writing the batch when it is full.
func (m *migration) add(ctx context.Context, key string, mut *bigtable.Mutation) error {
	m.b.add(key, mut)
	m.rows++
	if len(m.b.rows) < migrateBatchRows {
		return nil
	}
	return m.flush(ctx)
}

// flush writes the queued rows.
func (m *migration) flush(ctx context.Context) error {
	if len(m.b.rows) == 0 {
		return nil
	}
	if err := m.w.applyBatch(ctx, &m.b); err != nil {
		return err
	}
	m.b = batch{}
	if migrateHook != nil {
		return migrateHook(m.step, false)
	}
	return nil
}

func (m *migration) reportBad(key string, err error) { m.bad(BadEntry{Key: key, Err: err}) }

// scan calls fn with every row of rs that filter keeps, stopping at fn's
// first error.
func (m *migration) scan(ctx context.Context, rs bigtable.RowSet, filter bigtable.Filter, fn func(bigtable.Row) error) error {
	return m.w.scanRows(ctx, rs, filter, "reading rows to migrate", fn)
}

// latestFetch keeps the newest cell of every fetch column.
func latestFetch() bigtable.Filter {
	return bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1))
}

// migrateFrontierRows gives every queued page known by its row only an
// entry, unless FrontierMarkerKey says that was done. An entry's key takes
// its position from a count of the entries written, in row-key order
// (node 0), so that the step run again writes the same keys; they sort
// before every entry a crawl writes (whose positions are microseconds
// since 1970), as pages queued before them should.
func migrateFrontierRows(ctx context.Context, m *migration) error {
	marker, err := m.w.tbl.ReadRow(ctx, FrontierMarkerKey)
	if err != nil || len(marker) > 0 {
		return err
	}
	var seq uint64
	return m.scan(ctx, PageRange(), latestFetch(), func(r bigtable.Row) error {
		var f crawlstore.Fetch
		var err error
		if hasColumn(r, FamilyFetch, colRecord) {
			f, err = parseFetch(r)
		} else {
			f, err = parseOldFetch(r)
		}
		if err != nil {
			m.reportBad(r.Key(), err)
			return nil
		}
		if f.State != crawlstore.StateQueued || f.URL == "" {
			// NB: a queued row without a URL was queued with its
			// frontier entry.
			return nil
		}
		u, err := urlkey.Canonical(f.URL)
		if err != nil || urlkey.KeyOf(u) != r.Key() {
			if err == nil {
				err = fmt.Errorf("fetch:url %q is not the URL of the row", f.URL)
			}
			m.reportBad(r.Key(), err)
			return nil
		}
		seq++
		return m.add(ctx, FrontierEntryKey(u.Host, seq, 0), frontierMutation(crawlstore.Entry{URL: u.String(), Depth: f.Depth}))
	})
}

// migrateEntryCell rewrites every frontier entry of three cells as one.
func migrateEntryCell(ctx context.Context, m *migration) error {
	return m.scan(ctx, bigtable.PrefixRange(FrontierPrefix), latestFetch(), func(r bigtable.Row) error {
		if !hasColumn(r, FamilyFetch, oldEntryColumns[:]...) {
			return nil
		}
		mut := bigtable.NewMutation()
		for _, col := range oldEntryColumns {
			mut.DeleteCellsInColumn(FamilyFetch, col)
		}
		if !hasColumn(r, FamilyFetch, colEntry) {
			e, err := parseOldEntry(r)
			if err != nil {
				m.reportBad(r.Key(), err)
				return nil
			}
			mut.SetOnlyVersion(FamilyFetch, colEntry, FrontierTime, entryValue(e))
		}
		return m.add(ctx, r.Key(), mut)
	})
}

// migrateFetchRecord rewrites every page row's fetch columns as one
// fetch:record at their time; a row that was only queued keeps its state.
func migrateFetchRecord(ctx context.Context, m *migration) error {
	return m.scan(ctx, PageRange(), latestFetch(), func(r bigtable.Row) error {
		if !hasColumn(r, FamilyFetch, oldFetchColumns[:]...) {
			return nil
		}
		mut := bigtable.NewMutation()
		if !hasColumn(r, FamilyFetch, colRecord) {
			f, err := parseOldFetch(r)
			if err != nil {
				m.reportBad(r.Key(), err)
				return nil
			}
			var ts bigtable.Timestamp
			fetched := false
			for _, it := range r[FamilyFetch] {
				switch qualifier(it.Column) {
				case colState, colURL, colDepth:
				default:
					fetched, ts = true, max(ts, it.Timestamp)
				}
			}
			if fetched {
				mut.Set(FamilyFetch, colRecord, ts, encodeFetchRecord(f))
			}
		}
		for _, col := range oldFetchColumns {
			mut.DeleteCellsInColumn(FamilyFetch, col)
		}
		return m.add(ctx, r.Key(), mut)
	})
}

// migrateContentsMeta packs every version's contents:status, truncated,
// url and headers into contents:meta at its time.
func migrateContentsMeta(ctx context.Context, m *migration) error {
	fs := []bigtable.Filter{column(FamilyContents, colMeta)}
	for _, q := range oldContentsColumns {
		fs = append(fs, column(FamilyContents, q))
	}
	return m.scan(ctx, PageRange(), bigtable.InterleaveFilters(fs...), func(r bigtable.Row) error {
		if !hasColumn(r, FamilyContents, oldContentsColumns[:]...) {
			return nil
		}
		type entry struct {
			c    cells
			meta bool
		}
		byTS := map[bigtable.Timestamp]*entry{}
		var times []bigtable.Timestamp
		for _, it := range r[FamilyContents] {
			e := byTS[it.Timestamp]
			if e == nil {
				e = &entry{}
				byTS[it.Timestamp] = e
				times = append(times, it.Timestamp)
			}
			if q := qualifier(it.Column); q == colMeta {
				e.meta = true
			} else {
				e.c = append(e.c, cell{q, it.Value})
			}
		}
		slices.Sort(times)
		mut := bigtable.NewMutation()
		deleted := map[bigtable.Timestamp]bool{}
		for _, ts := range times {
			e := byTS[ts]
			if !e.meta && len(e.c) > 0 {
				if err := checkOldStatus(e.c); err != nil {
					m.reportBad(r.Key(), fmt.Errorf("contents at %s: %w", formatTime(ts.Time()), err))
					return nil
				}
				mut.Set(FamilyContents, colMeta, ts, encodeMeta(e.c))
			}
			// NB: the whole millisecond, which Cloud Bigtable needs
			// (see slotEnd): the old cells of the entries in it are
			// all rewritten here.
			if ms := ts.TruncateToMilliseconds(); !deleted[ms] {
				deleted[ms] = true
				for _, q := range oldContentsColumns {
					mut.DeleteTimestampRange(FamilyContents, q, ms, ms+1000)
				}
			}
		}
		return m.add(ctx, r.Key(), mut)
	})
}

// checkOldStatus reports old contents cells whose status is missing or not
// a number (contents:meta must start with one).
func checkOldStatus(c cells) error {
	s := c.get(colStatus)
	if s == nil {
		return fmt.Errorf("no contents:status beside contents:%s", c[0].q)
	}
	if _, err := decodeMeta(encodeMeta(c)); err != nil {
		return fmt.Errorf("contents:status holds %q: %w", s, err)
	}
	return nil
}

// migrateNoMarker deletes the frontier marker, which the format version
// replaces.
func migrateNoMarker(ctx context.Context, m *migration) error {
	marker, err := m.w.tbl.ReadRow(ctx, FrontierMarkerKey)
	if err != nil || len(marker) == 0 {
		return err
	}
	return m.add(ctx, FrontierMarkerKey, deleteRow())
}

// migratePrivateSeeds records the dial addresses of the private hosts of
// the frontier in PrivateSeedsKey's row, in one write, unless the row
// says that the store recorded its private seeds (colRecorded). Run again,
// it writes the same cells.
func migratePrivateSeeds(ctx context.Context, m *migration) error {
	row, err := m.w.tbl.ReadRow(ctx, PrivateSeedsKey, bigtable.RowFilter(column(FamilyFetch, colRecorded)))
	if err != nil || len(row) > 0 {
		return err
	}
	var addrs []string
	err = m.w.FrontierHosts(ctx, 0, urlkey.Buckets, func(host string) bool {
		for _, a := range crawlstore.PrivateHostAddrs(host) {
			if !slices.Contains(addrs, a) {
				addrs = append(addrs, a)
			}
		}
		return true
	}, func(b BadEntry) { m.bad(b) })
	if err != nil || len(addrs) == 0 {
		return err
	}
	m.allowed = addrs
	return m.add(ctx, PrivateSeedsKey, privateSeedsMutation(addrs))
}
