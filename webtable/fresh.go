package webtable

import "sync"

// freshRows remembers, up to a bound, the rows this process queued as new
// URLs (unknown to the table until then) and has not stored a fetch in
// since. Such a row holds no fetch record and no content, so the store
// answers LastFetch for it without a read, and Save skips reading its
// newest content version: two reads of the store per page of a crawl that
// finds new URLs, a tenth of its CPU on a generated site.
//
// A row is fresh from the moment the call that queued it (Enqueue,
// SavePage) returned until a SavePage of the URL, or of a redirect to it,
// starts. What makes the answer safe:
//   - a SavePage that writes a row's fetch record (the page's, a redirect
//     target's) drops the row when it starts and again when it ends, and
//     while it runs the row is never answered from memory (saving);
//   - a row is added only if no SavePage touched it since the adding call
//     started (the log of the last logLen touches, by epoch): a save that
//     committed after the adding call read the row's state as unknown would
//     otherwise leave a stale entry. When the log no longer reaches back
//     that far, the row is not added (read as before).
//
// A row not in the set is read from the store as before, so a row left
// out (the set full, the log too short) only costs a read. NB: it relies
// on this process being the only one that fetches the URLs of its hosts,
// as shards split hosts; rows of other shards' hosts that it queued stay
// in the set, unasked, taking room.
type freshRows struct {
	mu     sync.Mutex
	max    int
	rows   map[string]struct{}
	saving map[string]int // rows of SavePage calls in progress
	epoch  uint64         // SavePage touches so far
	log    [logLen]touch  // the last logLen touches, epoch%logLen
}

// logLen is how many SavePage touches freshRows remembers: far more than
// the touches of the saves in flight while one call runs (2 per fetch).
const logLen = 1024

// maxFreshRows bounds freshRows: about 100 bytes a row, some 3 MiB.
const maxFreshRows = 1 << 15

type touch struct {
	epoch uint64
	key   string
}

func newFreshRows(max int) *freshRows {
	return &freshRows{max: max, rows: map[string]struct{}{}, saving: map[string]int{}}
}

// start returns the epoch a call that may add rows starts at.
func (f *freshRows) start() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.epoch
}

// add marks keys fresh, for a call that started at epoch since and has
// stored them as new queued rows, unless a save touched one since.
func (f *freshRows) add(since uint64, keys []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.epoch-since >= logLen {
		return // NB: the log no longer covers the call: add nothing
	}
	for _, k := range keys {
		if len(f.rows) >= f.max {
			return
		}
		if f.saving[k] > 0 || f.touchedSince(since, k) {
			continue
		}
		f.rows[k] = struct{}{}
	}
}

// touchedSince reports whether a save touched key after epoch since.
func (f *freshRows) touchedSince(since uint64, key string) bool {
	for e := since + 1; e <= f.epoch; e++ {
		if t := f.log[e%logLen]; t.epoch == e && t.key == key {
			return true
		}
	}
	return false
}

// saveStarts drops keys (the rows a SavePage writes a fetch record to) and
// holds them out of the set until saveEnds. It reports whether the first
// key was fresh.
func (f *freshRows) saveStarts(keys ...string) (firstFresh bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, firstFresh = f.rows[keys[0]]
	firstFresh = firstFresh && f.saving[keys[0]] == 0
	for _, k := range keys {
		f.touchLocked(k)
		f.saving[k]++
	}
	return firstFresh
}

// saveEnds ends saveStarts(keys...), whether the save succeeded or not.
func (f *freshRows) saveEnds(keys ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		f.touchLocked(k)
		if f.saving[k]--; f.saving[k] <= 0 {
			delete(f.saving, k)
		}
	}
}

func (f *freshRows) touchLocked(k string) {
	delete(f.rows, k)
	f.epoch++
	f.log[f.epoch%logLen] = touch{f.epoch, k}
}

// fresh reports whether key's row is known to hold no fetch yet.
func (f *freshRows) fresh(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.rows[key]
	return ok && f.saving[key] == 0
}
