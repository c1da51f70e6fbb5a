package crawler

import (
	"context"

	"github.com/webtable/webtable/crawlstore"
)

// has returns the store as its optional power P (crawlstore.HostFeed,
// ...), its calls bounded as the store's are, when the store it wraps has
// that power. The boundStore itself implements every power; its methods
// below are only reached through has.
func has[P any](b *boundStore) (P, bool) {
	var p P
	if _, ok := b.s.(P); !ok {
		return p, false
	}
	return any(b).(P), true
}

func (b *boundStore) FrontierHint(ctx context.Context, host string) (hint string, err error) {
	err = b.call(ctx, func(ctx context.Context) error {
		hint, err = b.s.(crawlstore.FrontierHinter).FrontierHint(ctx, host)
		return err
	})
	return hint, err
}

func (b *boundStore) FedHosts(ctx context.Context, shard, shards int, fn func(host string)) error {
	return b.call(ctx, func(ctx context.Context) error {
		return b.s.(crawlstore.HostFeed).FedHosts(ctx, shard, shards, fn)
	})
}

func (b *boundStore) RecordHeldBack(ctx context.Context, shard, shards int, held []crawlstore.HeldBack) error {
	return b.call(ctx, func(ctx context.Context) error {
		return b.s.(crawlstore.HoldRecorder).RecordHeldBack(ctx, shard, shards, held)
	})
}

func (b *boundStore) HeldBack(ctx context.Context) (held []crawlstore.HeldBack, err error) {
	err = b.call(ctx, func(ctx context.Context) error {
		held, err = b.s.(crawlstore.HoldRecorder).HeldBack(ctx)
		return err
	})
	return held, err
}

func (b *boundStore) PrivateSeeds(ctx context.Context) (addrs []string, err error) {
	err = b.call(ctx, func(ctx context.Context) error {
		addrs, err = b.s.(crawlstore.PrivateSeeder).PrivateSeeds(ctx)
		return err
	})
	return addrs, err
}

func (b *boundStore) AddPrivateSeeds(ctx context.Context, addrs []string) error {
	return b.call(ctx, func(ctx context.Context) error {
		return b.s.(crawlstore.PrivateSeeder).AddPrivateSeeds(ctx, addrs)
	})
}
