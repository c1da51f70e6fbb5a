package main

import (
	"context"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/webtable"
)

var _ crawler.HoldRecorder = (*store)(nil)

// RecordHeldBack implements crawler.HoldRecorder.
func (s *store) RecordHeldBack(ctx context.Context, shard, shards int, held []crawler.HeldBack) (err error) {
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
		mine = func(host string) bool { return crawler.ShardOf(host, shards) == shard }
	}
	return s.w.SetOriginHolds(ctx, holds, mine)
}

// HeldBack implements crawler.HoldRecorder.
func (s *store) HeldBack(ctx context.Context) (_ []crawler.HeldBack, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	holds, err := s.w.OriginHolds(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := make([]crawler.HeldBack, len(holds))
	for i, h := range holds {
		out[i] = crawler.HeldBack{Origin: h.Origin, Reason: crawler.HoldReason(h.Reason), Detail: h.Detail,
			Until: h.Until, Entries: h.Entries}
	}
	return out, nil
}

var _ crawler.PrivateSeeder = (*store)(nil)

// PrivateSeeds implements crawler.PrivateSeeder.
func (s *store) PrivateSeeds(ctx context.Context) (_ []string, _ bool, err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.PrivateSeeds(ctx)
}

// AddPrivateSeeds implements crawler.PrivateSeeder.
func (s *store) AddPrivateSeeds(ctx context.Context, addrs []string) (err error) {
	ctx, done := s.bound(ctx)
	defer func() { err = done(err) }()
	return s.w.AddPrivateSeeds(ctx, addrs)
}
