package crawler

import (
	"context"
	"fmt"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// The origins held back are kept across runs by a store that can
// (crawlstore.HoldRecorder): a run loads those whose Retry-After is still
// ahead and records its own when it ends.

// loadHolds holds back again, at the start of a run, the origins whose
// server asked an earlier run to wait until a time still ahead.
func (r *run) loadHolds(ctx context.Context) error {
	hr, ok := has[crawlstore.HoldRecorder](r.c.store)
	if !ok {
		return nil
	}
	held, err := hr.HeldBack(ctx)
	if err != nil {
		return fmt.Errorf("%w: reading held-back origins: %w", ErrStore, err)
	}
	now := time.Now()
	for _, h := range held {
		scheme, host, ok := cutOrigin(h.Origin)
		if !ok || h.Reason != crawlstore.HoldRetryAfter || !h.Until.After(now) || !r.c.mine(host) {
			continue
		}
		if r.sched.hold(scheme, host, crawlstore.HoldRetryAfter, h.Detail, h.Until) {
			r.logOrigin(h.Origin, crawlstore.HoldRetryAfter, h.Detail, h.Until)
		}
	}
	return nil
}

// recordHolds hands the run's held-back origins to the store, if it keeps
// them.
func (r *run) recordHolds(held []crawlstore.HeldBack) error {
	hr, ok := has[crawlstore.HoldRecorder](r.c.store)
	if !ok {
		return nil
	}
	if err := hr.RecordHeldBack(r.storeCtx, r.c.cfg.Shard, r.c.cfg.Shards, held); err != nil {
		return fmt.Errorf("%w: recording held-back origins: %w", ErrStore, err)
	}
	return nil
}
