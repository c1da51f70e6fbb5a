package crawler

import (
	"context"

	"github.com/webtable/webtable/crawlstore"
)

// boundHinter, boundFeed, boundHolds and boundSeeds are a store's optional
// powers with their calls bounded as the store's are (boundStore).
type (
	boundHinter struct {
		b *boundStore
		h crawlstore.FrontierHinter
	}
	boundFeed struct {
		b *boundStore
		f crawlstore.HostFeed
	}
	boundHolds struct {
		b *boundStore
		r crawlstore.HoldRecorder
	}
	boundSeeds struct {
		b *boundStore
		p crawlstore.PrivateSeeder
	}
)

// hinter returns the store as a crawlstore.FrontierHinter, if it is one.
func (b *boundStore) hinter() (crawlstore.FrontierHinter, bool) {
	h, ok := b.s.(crawlstore.FrontierHinter)
	return boundHinter{b, h}, ok
}

// feed returns the store as a crawlstore.HostFeed, if it is one.
func (b *boundStore) feed() (crawlstore.HostFeed, bool) {
	f, ok := b.s.(crawlstore.HostFeed)
	return boundFeed{b, f}, ok
}

// holds returns the store as a crawlstore.HoldRecorder, if it is one.
func (b *boundStore) holds() (crawlstore.HoldRecorder, bool) {
	r, ok := b.s.(crawlstore.HoldRecorder)
	return boundHolds{b, r}, ok
}

// privateSeeds returns the store as a crawlstore.PrivateSeeder, if it is
// one.
func (b *boundStore) privateSeeds() (crawlstore.PrivateSeeder, bool) {
	p, ok := b.s.(crawlstore.PrivateSeeder)
	return boundSeeds{b, p}, ok
}

func (h boundHinter) FrontierHint(ctx context.Context, host string) (hint string, err error) {
	err = h.b.call(ctx, func(ctx context.Context) error { hint, err = h.h.FrontierHint(ctx, host); return err })
	return hint, err
}

func (f boundFeed) FedHosts(ctx context.Context, shard, shards int, fn func(host string)) error {
	return f.b.call(ctx, func(ctx context.Context) error { return f.f.FedHosts(ctx, shard, shards, fn) })
}

func (r boundHolds) RecordHeldBack(ctx context.Context, shard, shards int, held []crawlstore.HeldBack) error {
	return r.b.call(ctx, func(ctx context.Context) error { return r.r.RecordHeldBack(ctx, shard, shards, held) })
}

func (r boundHolds) HeldBack(ctx context.Context) (held []crawlstore.HeldBack, err error) {
	err = r.b.call(ctx, func(ctx context.Context) error { held, err = r.r.HeldBack(ctx); return err })
	return held, err
}

func (p boundSeeds) PrivateSeeds(ctx context.Context) (addrs []string, recorded bool, err error) {
	err = p.b.call(ctx, func(ctx context.Context) error { addrs, recorded, err = p.p.PrivateSeeds(ctx); return err })
	return addrs, recorded, err
}

func (p boundSeeds) AddPrivateSeeds(ctx context.Context, addrs []string) error {
	return p.b.call(ctx, func(ctx context.Context) error { return p.p.AddPrivateSeeds(ctx, addrs) })
}
