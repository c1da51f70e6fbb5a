package webtable

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/keyspace"
	"github.com/webtable/webtable/urlkey"
)

// The reserved key space. No URL's row key starts with '~' (a row key
// starts with a host label, an IPv4 number or an IPv6 '['; see package
// urlkey), and '~' sorts after every byte those can start with, so the
// crawler's own rows sit after every page, in one range that scans of pages
// leave out ([PageRange]).
//
// # Frontier key layout
//
// A frontier entry is one row:
//
//	~frontier/<bucket>/<host>/<seq><node>
//
//	bucket  urlkey.HostBucket of the host, 6 decimal digits (000000..720719),
//	        so that a shard reads one contiguous range (urlkey.BucketRange)
//	host    url.URL.Host of the canonical URL: lower case, port kept when not
//	        the default ("www.cnn.com", "127.0.0.1:8080", "[::1]:8080")
//	seq     16 hex digits: microseconds since the epoch when the entry was
//	        written, made strictly increasing within one process, so entries
//	        of a host sort in order of discovery
//	node    8 hex digits, random per open WebTable, so that two processes
//	        writing at the same microsecond never write the same key
//
// NB: the parts are ended by '/' without escaping because none can hold
// one: a bucket is digits, a host (with its port) never holds '/', and seq
// and node have fixed widths. The row holds one cell, fetch:entry at
// [FrontierTime]:
//
//	<depth> <chain> <url>
//
// depth in decimal, chain (the number of hops within one URL pattern that
// led to it, see the crawler's trap rules) in decimal, then the canonical
// URL, separated by single spaces (a canonical URL holds none, and the
// value is split at its first two spaces only). An entry is deleted once
// the save that marks its page done or failed committed, at the front of
// the next group of saves' bulk write or at Close (see group.go), by a
// delete of that one known cell, which reads nothing
// (bigtable.Mutation.DeleteOnlyVersion); an entry a crash left behind is
// dropped by [WebTable.FrontierNext] as stale.
//
// Stores before [FormatEntryCell] could hold entries of three cells
// ([WebTable.Migrate] rewrites them).
//
// Future per-shard or per-crawl records go under other names after
// ReservedPrefix ("~shard/..."); [FormatKey] records the store's format
// version.
const (
	// ReservedPrefix starts every row key that is not a page.
	ReservedPrefix = "~"
	// FrontierPrefix starts every frontier entry's row key.
	FrontierPrefix = ReservedPrefix + "frontier/"
	// HostDonePrefix starts the rows that count each host's pages fetched:
	// ~done/<bucket>/<host>/<16 hex digits of FNV-1a 64 of the page's row
	// key>, one per page marked done, written with the mark (so the count
	// survives kills) and read back by [WebTable.HostPages].
	HostDonePrefix = ReservedPrefix + "done/"
	// FrontierMarkerKey is the row that said, before format versions,
	// that the store's queued pages all had frontier entries (see
	// [FormatFrontierRows]); [FormatNoMarker] deletes it.
	FrontierMarkerKey = ReservedPrefix + "meta/frontier"
)

// colEntry is the qualifier of a frontier entry's one cell (see the layout
// above).
const colEntry = "entry"

// frontierBatchRows bounds the entries of the frontier read in one batch,
// and the rows of one bulk write of a migration.
const frontierBatchRows = 500

// PageRange is the range of every page row: from the first key to
// ReservedPrefix, excluded.
func PageRange() bigtable.RowRange { return bigtable.NewRange("", ReservedPrefix) }

// IsReserved reports whether a row key is the crawler's own (a frontier
// entry or another record), not a page.
func IsReserved(key string) bool { return strings.HasPrefix(key, ReservedPrefix) }

// FrontierEntryKey returns the row key of a frontier entry (see the layout
// above). host is url.URL.Host of a canonical URL.
func FrontierEntryKey(host string, seq uint64, node uint32) string {
	var b strings.Builder
	b.Grow(len(FrontierPrefix) + 8 + len(host) + 25)
	b.WriteString(FrontierPrefix)
	b.WriteString(bucketText(urlkey.HostBucket(host)))
	b.WriteByte('/')
	b.WriteString(host)
	b.WriteByte('/')
	var hx [24]byte
	hexPut(hx[:16], seq)
	hexPut(hx[16:], uint64(node))
	b.Write(hx[:])
	return b.String()
}

// FrontierHostPrefix is the prefix of every frontier entry of host.
func FrontierHostPrefix(host string) string {
	return FrontierPrefix + bucketText(urlkey.HostBucket(host)) + "/" + host + "/"
}

// FrontierBucketRange is the range of frontier keys of buckets [lo, hi).
func FrontierBucketRange(lo, hi int) bigtable.RowRange {
	return bigtable.NewRange(bucketBounds(FrontierPrefix, lo, hi))
}

// bucketBounds is the key range of buckets [lo, hi) of a family of rows
// keyed <prefix><bucket>/... (the frontier, its hints, due entries and
// sitemap schedules), so that a shard reads one contiguous range.
func bucketBounds(prefix string, lo, hi int) (start, end string) {
	end = prefix + bucketText(hi) + "/"
	if hi >= urlkey.Buckets {
		end = keyspace.PrefixEnd(prefix)
	}
	return prefix + bucketText(lo) + "/", end
}

// ParseFrontierKey splits a frontier entry key into its bucket and host,
// checking the layout.
func ParseFrontierKey(key string) (bucket int, host string, err error) {
	rest, ok := strings.CutPrefix(key, FrontierPrefix)
	if !ok || len(rest) < 8 || rest[6] != '/' {
		return 0, "", fmt.Errorf("webtable: %q is not a frontier key", key)
	}
	bucket, err = strconv.Atoi(rest[:6])
	if err != nil || bucket < 0 || bucket >= urlkey.Buckets {
		return 0, "", fmt.Errorf("webtable: frontier key %q has a bad bucket", key)
	}
	rest = rest[7:]
	i := strings.IndexByte(rest, '/')
	if i <= 0 || len(rest)-i-1 != 24 {
		return 0, "", fmt.Errorf("webtable: frontier key %q has no host and position", key)
	}
	return bucket, rest[:i], nil
}

func bucketText(b int) string {
	s := strconv.Itoa(b)
	return strings.Repeat("0", max(6-len(s), 0)) + s
}

const hexDigits = "0123456789abcdef"

// hexPut writes v as len(dst) hex digits, big-endian.
func hexPut(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = hexDigits[v&0xf]
		v >>= 4
	}
}

// sequencer hands out increasing frontier positions.
type sequencer struct {
	mu   sync.Mutex
	last uint64
	node uint32
}

func newSequencer() *sequencer {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &sequencer{node: binary.BigEndian.Uint32(b[:])}
}

// key returns the key of a new entry of host.
func (s *sequencer) key(host string) string {
	s.mu.Lock()
	seq := max(uint64(time.Now().UnixMicro()), s.last+1)
	s.last = seq
	s.mu.Unlock()
	return FrontierEntryKey(host, seq, s.node)
}

// frontierMutation is the write of a frontier entry: its one cell, and
// a second for an entry queued from a sitemap (see frontier_sitemap.go).
//
// NB: an entry's row is new (its key holds a fresh sequence number) and
// written at FrontierTime only, so its cell has nothing to prune
// (SetOnlyVersion spares a seek).
func frontierMutation(e crawlstore.Entry) *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.SetOnlyVersion(FamilyFetch, colEntry, FrontierTime, entryValue(e))
	if e.Sitemap.Listed {
		m.SetOnlyVersion(FamilyFetch, colSitemap, FrontierTime, sitemapValue(e.Sitemap)) // frontier_sitemap.go
	}
	return m
}

// entryValue is the value of an entry's fetch:entry cell (see the layout
// above).
func entryValue(e crawlstore.Entry) []byte {
	v := make([]byte, 0, len(e.URL)+8)
	v = strconv.AppendInt(v, int64(e.Depth), 10)
	v = append(v, ' ')
	v = strconv.AppendInt(v, int64(e.Chain), 10)
	v = append(v, ' ')
	return append(v, e.URL...)
}

// parseEntryValue reads an entry's fetch:entry cell into e.
func parseEntryValue(e *crawlstore.Entry, v string) error {
	depth, rest, ok1 := strings.Cut(v, " ")
	chain, url, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 {
		return fmt.Errorf("column %s:%s holds %q: want <depth> <chain> <url>", FamilyFetch, colEntry, v)
	}
	var err error
	if e.Depth, err = strconv.Atoi(depth); err == nil {
		e.Chain, err = strconv.Atoi(chain)
	}
	if err != nil {
		return fmt.Errorf("column %s:%s holds %q: %w", FamilyFetch, colEntry, v, err)
	}
	e.URL = url
	return nil
}

// dropEntry is the delete of a frontier entry in the current form: of its
// one known cell, reading nothing.
func dropEntry() *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.DeleteOnlyVersion(FamilyFetch, colEntry, FrontierTime)
	return m
}

// BadEntry is a frontier entry or queued row that could not be read: it is
// skipped (and left in place), never a reason to stop.
type BadEntry struct {
	Key string // its row key
	Err error  // what is wrong with it
}

func (b BadEntry) Error() string { return fmt.Sprintf("row %q: %v", b.Key, b.Err) }

// FrontierHosts calls fn with the host of every frontier entry in buckets
// [lo, hi) (urlkey.BucketRange of a shard; 0, urlkey.Buckets for all), once
// per host, in key order, until fn returns false. It reads one entry per
// host (a seek past each host's entries), not the entries themselves, and
// seeks a host that has a hint (see [FrontierHintPrefix]) from its hint,
// over the entries deleted before, looking before the hint only when
// nothing follows it. Keys that do not follow the layout are passed to bad
// and skipped.
func (w *WebTable) FrontierHosts(ctx context.Context, lo, hi int, fn func(host string) bool, bad func(BadEntry)) error {
	start, end := bucketBounds(FrontierPrefix, lo, hi)
	hints := newHintReader(w, lo, hi)
	for {
		h, err := hints.peek(ctx)
		for err == nil && h != nil && h.prefix < start {
			hints.next()
			h, err = hints.peek(ctx)
		}
		if err != nil {
			return fmt.Errorf("webtable: listing frontier hosts: %w", err)
		}
		// The hosts before the next hinted one, each from its first key.
		limit := end
		if h != nil && h.prefix < end {
			limit = h.prefix
		}
		key, err := w.firstKey(ctx, start, limit)
		if err != nil {
			return err
		}
		if key != "" {
			_, host, err := ParseFrontierKey(key)
			if err != nil {
				if bad != nil {
					bad(BadEntry{Key: key, Err: err})
				}
				start = key + "\x00"
				continue
			}
			if !fn(host) {
				return nil
			}
			start = keyspace.PrefixEnd(FrontierHostPrefix(host))
			continue
		}
		if h == nil {
			return nil
		}
		// The hinted host: an entry from the hint on, else one before it.
		hostEnd := keyspace.PrefixEnd(h.prefix)
		key, err = w.firstKey(ctx, h.hint, hostEnd)
		if err == nil && key == "" {
			key, err = w.firstKey(ctx, h.prefix, h.hint)
		}
		if err != nil {
			return err
		}
		if key != "" && !fn(h.host) {
			return nil
		}
		start = hostEnd
		hints.next()
	}
}

// firstKey returns the first frontier key in [start, end), "" if none.
func (w *WebTable) firstKey(ctx context.Context, start, end string) (string, error) {
	if start >= end {
		return "", nil
	}
	var key string
	err := w.tbl.ReadRows(ctx, bigtable.NewRange(start, end), func(row bigtable.Row) bool {
		key = row.Key()
		return false
	}, bigtable.LimitRows(1), bigtable.RowFilter(bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())))
	if err != nil {
		return "", fmt.Errorf("webtable: listing frontier hosts: %w", err)
	}
	return key, nil
}

// FrontierPage is what [WebTable.FrontierNext] read.
type FrontierPage struct {
	// Entries are the entries read, in order, each with its Frontier key.
	Entries []crawlstore.Entry
	// Next is where the next read of the host starts.
	Next string
	// More is true when the read stopped at its limit (the host may have
	// more entries after Next).
	More bool
	// Bad lists the entries skipped because they cannot be read.
	Bad []BadEntry
	// Stale is how many entries were deleted because their page was
	// already fetched (a duplicate written by two pages at once).
	Stale int
}

// FrontierNext reads up to n entries of host's frontier, from the key from
// ("" = the host's first entry) on, in order of discovery. It never walks
// back over entries before from: deleted entries leave tombstones in the
// store, and a cursor that only moves forward never reads them twice.
//
// An entry whose page is already done or failed (a URL queued twice by
// pages saved at the same time, one copy fetched) is deleted, not
// returned. An entry that cannot be read is listed in Bad and skipped.
//
// queued, when not nil, names pages the caller knows are still to be
// fetched (the crawler: the URLs it queued as new and has not stored
// since): an entry whose row key it returns true for is handed out without
// reading its page's state, a seek saved per entry. A wrong true hands out
// an entry whose page is done, to be fetched again. A nil queued reads
// every state.
func (w *WebTable) FrontierNext(ctx context.Context, host, from string, n int, queued func(key string) bool) (FrontierPage, error) {
	prefix := FrontierHostPrefix(host)
	start := prefix
	if from > start {
		start = from
	}
	out := FrontierPage{Next: start}
	var keys, leftover []string
	err := w.tbl.ReadRows(ctx, bigtable.NewRange(start, keyspace.PrefixEnd(prefix)), func(r bigtable.Row) bool {
		out.Next = r.Key() + "\x00"
		e, err := parseEntry(r)
		if errors.Is(err, errHintOnly) {
			leftover = append(leftover, r.Key())
			return true
		}
		if err != nil {
			out.Bad = append(out.Bad, BadEntry{Key: r.Key(), Err: err})
			return true
		}
		out.Entries = append(out.Entries, e)
		if queued == nil || !queued(e.Key) {
			keys = append(keys, e.Key)
		}
		return true
	}, bigtable.LimitRows(int64(n)), bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1))))
	if err != nil {
		return out, fmt.Errorf("webtable: reading the frontier of %s: %w", host, err)
	}
	out.More = len(out.Entries)+len(out.Bad) >= n
	if len(keys) == 0 && len(leftover) == 0 {
		return out, nil
	}
	states, err := w.states(ctx, keys)
	if err != nil {
		return out, err
	}
	var stale batch
	for _, k := range leftover {
		stale.add(k, deleteRow()) // frontier_sitemap.go
	}
	kept := out.Entries[:0]
	for _, e := range out.Entries {
		if st := states[e.Key].state; st == crawlstore.StateDone || st == crawlstore.StateFailed {
			stale.add(e.Frontier, deleteRow())
			continue
		}
		kept = append(kept, e)
	}
	out.Entries, out.Stale = kept, len(stale.rows)
	if err := w.applyBatch(ctx, &stale); err != nil {
		return out, fmt.Errorf("webtable: deleting stale frontier entries of %s: %w", host, err)
	}
	return out, nil
}

func deleteRow() *bigtable.Mutation {
	m := bigtable.NewMutation()
	m.DeleteRow()
	return m
}

// parseEntry reads a frontier entry's row (see the layout above).
func parseEntry(r bigtable.Row) (e crawlstore.Entry, err error) {
	e = crawlstore.Entry{Frontier: r.Key()}
	_, host, err := ParseFrontierKey(r.Key())
	if err != nil {
		return e, err
	}
	if err := readEntryCells(&e, r); err != nil {
		return e, err
	}
	u, err := urlkey.Canonical(e.URL)
	if err != nil {
		return e, fmt.Errorf("the entry's URL: %w", err)
	}
	if u.Host != host {
		return e, fmt.Errorf("the entry's URL %q is not on host %q", e.URL, host)
	}
	e.URL, e.Key = u.String(), urlkey.KeyOf(u)
	return e, nil
}

// hostDoneKey is the row that counts the page of row key done on host.
func hostDoneKey(host, key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	var hx [16]byte
	hexPut(hx[:], h.Sum64())
	return HostDonePrefix + bucketText(urlkey.HostBucket(host)) + "/" + host + "/" + string(hx[:])
}

// HostPages counts the pages of host marked done, up to limit (a count
// stops there: it reads at most limit keys).
func (w *WebTable) HostPages(ctx context.Context, host string, limit int) (int, error) {
	n := 0
	prefix := HostDonePrefix + bucketText(urlkey.HostBucket(host)) + "/" + host + "/"
	err := w.tbl.ReadRows(ctx, bigtable.PrefixRange(prefix), func(bigtable.Row) bool {
		n++
		return n < limit
	}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())))
	if err != nil {
		return n, fmt.Errorf("webtable: counting the pages of %s: %w", host, err)
	}
	return n, nil
}

// FrontierSize counts the frontier entries in buckets [lo, hi), reading
// keys only.
func (w *WebTable) FrontierSize(ctx context.Context, lo, hi int) (int64, error) {
	var n int64
	err := w.tbl.ReadRows(ctx, FrontierBucketRange(lo, hi), func(bigtable.Row) bool {
		n++
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())))
	if err != nil {
		return n, fmt.Errorf("webtable: counting the frontier: %w", err)
	}
	return n, nil
}
