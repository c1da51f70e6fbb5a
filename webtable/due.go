package webtable

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/keyspace"
	"github.com/webtable/webtable/urlkey"
)

// Due entries: when each page of a continuous crawl (crawl --continuous)
// is to be fetched again.
//
// # Due key layout
//
// A due entry is one row:
//
//	~due/<bucket>/<host>/<due><page>
//
//	bucket  urlkey.HostBucket of the host, 6 decimal digits, as in the
//	        frontier, so that a shard reads one contiguous range
//	host    url.URL.Host of the page's canonical URL
//	due     16 hex digits: microseconds since the epoch when the page is
//	        due, so that a host's entries sort by due time
//	page    16 hex digits: FNV-1a 64 of the page's row key, so that two
//	        pages due at one microsecond have two rows, and a save written
//	        twice (a crash, then the same fetch again) writes one
//
// The row holds one cell, fetch:entry at [FrontierTime], in the frontier
// entry's form (<depth> <chain> <url>). SavePage writes it with the page's
// fetch, before the mark; [CrawlStore.TakeDue] queues the page again in
// the frontier and only then deletes the row. The page's change history
// and due time are also in its fetch:record (visits, changes, span_ms,
// shortest_ms, rate, due, and from Last-Modified dates dated,
// dated_changes, quiet_ms and modified), which is where the next fetch
// reads them from.
//
// NB: new rows and new fields of fetch:record, which older readers skip:
// no format version step.

// DuePrefix starts every due entry's row key.
const DuePrefix = ReservedPrefix + "due/"

// DueEntryKey returns the row key of the due entry of the page of row key
// key on host (url.URL.Host), due at due (see the layout above).
func DueEntryKey(host string, due time.Time, key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	var hx [32]byte
	hexPut(hx[:16], uint64(max(due.UnixMicro(), 0)))
	hexPut(hx[16:], h.Sum64())
	return DueHostPrefix(host) + string(hx[:])
}

// DueHostPrefix is the prefix of every due entry of host.
func DueHostPrefix(host string) string {
	return DuePrefix + bucketText(urlkey.HostBucket(host)) + "/" + host + "/"
}

// ParseDueKey splits a due entry key into its host and due time, checking
// the layout.
func ParseDueKey(key string) (host string, due time.Time, err error) {
	rest, ok := strings.CutPrefix(key, DuePrefix)
	if !ok || len(rest) < 8 || rest[6] != '/' {
		return "", time.Time{}, fmt.Errorf("webtable: %q is not a due key", key)
	}
	bucket := rest[:6]
	if strings.Trim(bucket, "0123456789") != "" {
		return "", time.Time{}, fmt.Errorf("webtable: due key %q has a bad bucket", key)
	}
	rest = rest[7:]
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 || len(rest)-i-1 != 32 || strings.Trim(rest[i+1:], hexDigits) != "" {
		return "", time.Time{}, fmt.Errorf("webtable: due key %q has no host, due time and page", key)
	}
	host = rest[:i]
	if bucket != bucketText(urlkey.HostBucket(host)) {
		return "", time.Time{}, fmt.Errorf("webtable: due key %q is not in its host's bucket", key)
	}
	us, err := strconv.ParseUint(rest[i+1:i+17], 16, 64)
	if err != nil || us > math.MaxInt64 {
		return "", time.Time{}, fmt.Errorf("webtable: due key %q has a bad due time", key)
	}
	return host, time.UnixMicro(int64(us)).UTC(), nil
}

// dueOf is the due entry a save of p writes, or "" when p is not due
// again (not a continuous crawl).
func dueOf(p *crawlstore.Page) (key string, e crawlstore.Entry) {
	if p.Change.Due.IsZero() {
		return "", e
	}
	host := crawlstore.HostOf(p.URL)
	return DueEntryKey(host, p.Change.Due, p.Key), crawlstore.Entry{URL: p.URL, Key: p.Key, Depth: p.Depth, Sitemap: p.Sitemap}
}

// setChangeRecord puts c into the JSON form of a fetch record.
func setChangeRecord(r *fetchRecord, c crawlstore.Change) {
	if c == (crawlstore.Change{}) {
		return
	}
	r.Visits, r.Changes, r.SpanMS = c.Visits, c.Changes, c.Span.Milliseconds()
	r.ShortestMS, r.Dated, r.DatedChanges, r.QuietMS = c.Shortest.Milliseconds(), c.Dated, c.DatedChanges, c.Quiet.Milliseconds()
	if !c.Modified.IsZero() {
		r.Modified = formatTime(c.Modified)
	}
	if c.Rate >= 0 {
		rate := c.Rate
		r.Rate = &rate
	}
	if !c.Due.IsZero() {
		r.Due = formatTime(c.Due)
	}
}

// changeOfRecord reads the change history of a fetch record into c.
func changeOfRecord(c *crawlstore.Change, r *fetchRecord) error {
	*c = crawlstore.Change{}
	if r.Visits == 0 && r.Changes == 0 && r.SpanMS == 0 && r.Rate == nil && r.Due == "" &&
		r.ShortestMS == 0 && r.Dated == 0 && r.DatedChanges == 0 && r.QuietMS == 0 && r.Modified == "" {
		return nil
	}
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	*c = crawlstore.Change{Visits: r.Visits, Changes: r.Changes, Span: ms(r.SpanMS), Rate: -1,
		Shortest: ms(r.ShortestMS), Dated: r.Dated, DatedChanges: r.DatedChanges, Quiet: ms(r.QuietMS)}
	if r.Rate != nil {
		c.Rate = *r.Rate
	}
	for _, f := range []struct {
		text string
		t    *time.Time
	}{{r.Due, &c.Due}, {r.Modified, &c.Modified}} {
		if f.text == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.text)
		if err != nil {
			return err
		}
		*f.t = t
	}
	return nil
}

// takeDueBatch bounds the due entries queued in one Enqueue.
const takeDueBatch = 500

// TakeDue implements crawlstore.DueKeeper: it reads each host's due
// entries of the shard from its first, stopping at the first not yet due
// (one read per host), queues the due ones (Requeue of done and failed
// pages fetched before now) but the stale (see queueDue), then deletes
// their rows.
func (s *CrawlStore) TakeDue(ctx context.Context, shard, shards int, now time.Time, n int) (int, time.Time, error) {
	lo, hi := urlkey.BucketRange(shard, shards)
	start, end := bucketBounds(DuePrefix, lo, hi)
	var next time.Time
	var entries []crawlstore.Entry
	var rows []string
	var dues []time.Time
	for start < end && len(entries) < n {
		skip := ""
		err := s.w.tbl.ReadRows(ctx, bigtable.NewRange(start, end), func(r bigtable.Row) bool {
			host, due, err := ParseDueKey(r.Key())
			if err != nil {
				skip = r.Key() + "\x00" // not ours to read: left in place
				return false
			}
			if due.After(now) {
				if next.IsZero() || due.Before(next) {
					next = due
				}
				skip = keyspace.PrefixEnd(DueHostPrefix(host))
				return false
			}
			e := crawlstore.Entry{Frontier: r.Key()}
			if err := parseDueValue(&e, r, host); err != nil {
				skip = r.Key() + "\x00"
				return false
			}
			entries, rows, dues = append(entries, e), append(rows, r.Key()), append(dues, due)
			skip = r.Key() + "\x00"
			return len(entries) < n
		}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1))))
		if err != nil {
			return 0, next, fmt.Errorf("webtable: reading due entries: %w", err)
		}
		if skip == "" {
			break // nothing more in the range
		}
		start = skip
	}
	if len(entries) >= n {
		next = now // more may be due
	}
	taken := 0
	for i := 0; i < len(entries); i += takeDueBatch {
		j := min(i+takeDueBatch, len(entries))
		n, err := s.queueDue(ctx, entries[i:j], rows[i:j], dues[i:j], now)
		taken += n
		if err != nil {
			return taken, next, err
		}
	}
	return taken, next, nil
}

// queueDue queues entries again (due at dues), then deletes their due
// rows. An entry whose page was fetched again since it was written (a
// sitemap's lastmod, a link in a recrawl) and made due later is stale:
// its row goes, the page waits for its newer entry. It returns how many
// it queued.
func (s *CrawlStore) queueDue(ctx context.Context, entries []crawlstore.Entry, rows []string, dues []time.Time, now time.Time) (int, error) {
	keys := make([]string, len(entries))
	for i := range entries {
		entries[i].Frontier = ""
		keys[i] = entries[i].Key
	}
	states, err := s.w.states(ctx, keys)
	if err != nil {
		return 0, fmt.Errorf("webtable: reading due pages: %w", err)
	}
	live := entries[:0:0]
	for i, e := range entries {
		if !states[e.Key].due.After(dues[i]) {
			live = append(live, e)
		}
	}
	if _, err := s.Enqueue(ctx, live, crawlstore.Requeue{Failed: true, Done: true, Before: now}); err != nil {
		return 0, fmt.Errorf("webtable: queueing due pages: %w", err)
	}
	var b batch
	for _, k := range rows {
		b.add(k, deleteRow())
	}
	if err := s.w.applyBatch(ctx, &b); err != nil {
		return len(live), fmt.Errorf("webtable: deleting due entries: %w", err)
	}
	return len(live), nil
}

// parseDueValue reads a due row's fetch:entry into e, checking that its
// URL is on host.
func parseDueValue(e *crawlstore.Entry, r bigtable.Row, host string) error {
	if err := readEntryCells(e, r); err != nil {
		return fmt.Errorf("due entry %q: %w", r.Key(), err)
	}
	u, err := urlkey.Canonical(e.URL)
	if err != nil || u.Host != host {
		return fmt.Errorf("due entry %q: URL %q is not on host %q", r.Key(), e.URL, host)
	}
	e.URL, e.Key = u.String(), urlkey.KeyOf(u)
	return nil
}
