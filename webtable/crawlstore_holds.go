package webtable

import (
	"context"

	"github.com/webtable/webtable/crawlstore"
)

// RecordHeldBack implements crawlstore.HoldRecorder.
func (s *CrawlStore) RecordHeldBack(ctx context.Context, shard, shards int, held []crawlstore.HeldBack) error {
	now := s.now()
	holds := make([]OriginHold, len(held))
	for i, h := range held {
		holds[i] = OriginHold{Origin: h.Origin, Reason: string(h.Reason), Detail: h.Detail,
			Until: h.Until, Entries: h.Entries, Time: now}
	}
	var mine func(string) bool
	if shards > 1 {
		mine = func(host string) bool { return crawlstore.ShardOf(host, shards) == shard }
	}
	return s.w.SetOriginHolds(ctx, holds, mine)
}

// HeldBack implements crawlstore.HoldRecorder.
func (s *CrawlStore) HeldBack(ctx context.Context) ([]crawlstore.HeldBack, error) {
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

// PrivateSeeds implements crawlstore.PrivateSeeder.
func (s *CrawlStore) PrivateSeeds(ctx context.Context) ([]string, error) {
	return s.w.PrivateSeeds(ctx)
}

// AddPrivateSeeds implements crawlstore.PrivateSeeder.
func (s *CrawlStore) AddPrivateSeeds(ctx context.Context, addrs []string) error {
	return s.w.AddPrivateSeeds(ctx, addrs)
}
