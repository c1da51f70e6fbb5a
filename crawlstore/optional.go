package crawlstore

import (
	"context"
)

// FrontierHinter is a [Store] that knows where each host's live frontier
// entries probably start. A store that deletes an entry when its page is
// done may keep a trace of it that every later read walks over (Badger
// keeps tombstones until compactions drop them); a run that resumes after
// many pages of a host would read all of those before its first fetch.
//
// A hint is only a hint: live entries may sit before it (pages in flight
// when the hint was written, entries committed out of the order of their
// positions). The crawler starts a host's first read of a run at its hint
// and reads the entries before it in the background (readBehind), queueing
// the live ones it finds, so a wrong hint costs reads, never an entry. The
// run is not over before that read is.
type FrontierHinter interface {
	// FrontierHint returns a position of host's frontier (for Next's from)
	// at or near its first live entry, or "" when the store has none.
	FrontierHint(ctx context.Context, host string) (string, error)
}

// HostFeed is a [Store] that keeps, for a crawl split into shards, which
// hosts of each shard other shards queued frontier entries for.
type HostFeed interface {
	// FedHosts calls fn with each host of shard (of shards) that another
	// shard queued entries for since the last call, and forgets them.
	FedHosts(ctx context.Context, shard, shards int, fn func(host string)) error
}

// PrivateSeeder is a Store that remembers the addresses of private seeds
// (see above) across runs.
type PrivateSeeder interface {
	// PrivateSeeds returns the addresses ("host:port", see
	// [PrivateDialAddr]) recorded.
	//
	// NB: a store written before it recorded them brings them in when
	// it is opened (webtable's migration records the private hosts of
	// its frontier, as the crawls that queued them fetched them), not
	// here: the crawler never guesses per run.
	PrivateSeeds(ctx context.Context) (addrs []string, err error)
	// AddPrivateSeeds records more.
	AddPrivateSeeds(ctx context.Context, addrs []string) error
}

// HoldRecorder is a Store that keeps the origins a run held back, for
// readers (query stats --by-origin), and gives them back to the next run,
// which honours a server's Retry-After from a run before.
type HoldRecorder interface {
	// RecordHeldBack replaces what the store holds for the origins of the
	// hosts of shard of shards (every host when shards <= 1) with held.
	RecordHeldBack(ctx context.Context, shard, shards int, held []HeldBack) error
	// HeldBack returns what RecordHeldBack recorded last, for every host.
	HeldBack(ctx context.Context) ([]HeldBack, error)
}
