package main

import (
	"context"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

var _ crawlstore.HoldRecorder = (*store)(nil)

// RecordHeldBack implements crawlstore.HoldRecorder.
func (s *store) RecordHeldBack(ctx context.Context, shard, shards int, held []crawlstore.HeldBack) (err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	now := s.now()
	holds := make([]webtable.OriginHold, len(held))
	for i, h := range held {
		holds[i] = webtable.OriginHold{Origin: h.Origin, Reason: string(h.Reason), Detail: h.Detail,
			Until: h.Until, Entries: h.Entries, Time: now}
	}
	var mine func(string) bool
	if shards > 1 {
		mine = func(host string) bool { return crawlstore.ShardOf(host, shards) == shard }
	}
	return s.w.SetOriginHolds(ctx, holds, mine)
}

// HeldBack implements crawlstore.HoldRecorder.
func (s *store) HeldBack(ctx context.Context) (_ []crawlstore.HeldBack, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	holds, err := s.w.OriginHolds(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := make([]crawlstore.HeldBack, len(holds))
	for i, h := range holds {
		out[i] = crawlstore.HeldBack{Origin: h.Origin, Reason: crawlstore.HoldReason(h.Reason), Detail: h.Detail,
			Until: h.Until, Entries: h.Entries}
	}
	return out, nil
}

var _ crawlstore.PrivateSeeder = (*store)(nil)

// PrivateSeeds implements crawlstore.PrivateSeeder.
func (s *store) PrivateSeeds(ctx context.Context) (_ []string, _ bool, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.PrivateSeeds(ctx)
}

// AddPrivateSeeds implements crawlstore.PrivateSeeder.
func (s *store) AddPrivateSeeds(ctx context.Context, addrs []string) (err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.AddPrivateSeeds(ctx, addrs)
}
