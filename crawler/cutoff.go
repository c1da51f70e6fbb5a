package crawler

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// CutOff returns a context that ends grace after interrupt is cancelled,
// with the cause "the store did not answer within <grace> of the
// interrupt", and not before; release stops its timer (call it when the
// calls it bounds are over; the context then never ends unless it already
// has). A grace of 0 or less returns a context that never ends.
//
// Run bounds its store calls so ([Config.StoreGrace]); a program bounds
// its own store calls after a run the same way (the WebTable's last
// deletes), with the same deadline when it calls CutOff as the run starts.
func CutOff(interrupt context.Context, grace time.Duration) (cutoff context.Context, release func()) {
	if grace <= 0 {
		return context.Background(), func() {}
	}
	cutoff, cut := context.WithCancelCause(context.Background())
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(interrupt, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, func() {
			cut(fmt.Errorf("the store did not answer within %v of the interrupt", grace))
		})
	})
	return cutoff, func() {
		// NB: cutoff itself stays as it is: a call after release is not
		// cut off by it.
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
	}
}

// bound returns ctx, ended when cutoff ends, and the function to call with
// the store call's error when it returns: it names the cut-off as the
// cause of an error it brought about. NB: the crawler stores the pages in
// flight after Ctrl-C with a context that is never cancelled, so that they
// are saved; without a cut-off a hung store would hold the run for ever.
func bound(ctx, cutoff context.Context) (context.Context, func(error) error) {
	if cutoff == nil || cutoff.Done() == nil {
		return ctx, func(err error) error { return err }
	}
	if ctx.Done() == nil {
		// NB: the run's store calls come with a context that is never
		// cancelled (context.WithoutCancel), so the cut-off alone can end
		// them: no context to derive and no callback to register per call.
		return cutOnly{ctx, cutoff}, func(err error) error {
			if err != nil && cutoff.Err() != nil {
				return fmt.Errorf("%v: %v", context.Cause(cutoff), err)
			}
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(cutoff, func() { cancel(context.Cause(cutoff)) })
	return ctx, func(err error) error {
		stop()
		cut := ctx.Err() != nil && cutoff.Err() != nil
		cancel(nil)
		if err != nil && cut {
			// NB: %v, not %w: a cut-off call is a store failure, not the
			// crawl being stopped, and must not read as context.Canceled.
			return fmt.Errorf("%v: %v", context.Cause(ctx), err)
		}
		return err
	}
}

// cutOnly is a context that is never cancelled (its embedded one) made to
// end with cut.
type cutOnly struct {
	context.Context
	cut context.Context
}

func (c cutOnly) Done() <-chan struct{} { return c.cut.Done() }
func (c cutOnly) Err() error            { return c.cut.Err() }

// boundStore is the crawler's store with every call bounded by the cut-off
// of the current run (Config.StoreGrace). Its optional powers are reached
// through has, which says whether the store has them.
type boundStore struct {
	s crawlstore.Store
	// cut is the current run's cut-off; nil before the first run. It is
	// set by Run before any call of the run.
	cut context.Context
}

// call runs f with ctx bounded by the cut-off.
func (b *boundStore) call(ctx context.Context, f func(context.Context) error) error {
	ctx, done := bound(ctx, b.cut)
	return done(f(ctx))
}

func (b *boundStore) Hosts(ctx context.Context, shard, shards int, fn func(string) bool) error {
	return b.call(ctx, func(ctx context.Context) error { return b.s.Hosts(ctx, shard, shards, fn) })
}

func (b *boundStore) Next(ctx context.Context, host, from string, n int) (fb crawlstore.FrontierBatch, err error) {
	err = b.call(ctx, func(ctx context.Context) error { fb, err = b.s.Next(ctx, host, from, n); return err })
	return fb, err
}

func (b *boundStore) HostPages(ctx context.Context, host string, limit int) (n int, err error) {
	err = b.call(ctx, func(ctx context.Context) error { n, err = b.s.HostPages(ctx, host, limit); return err })
	return n, err
}

func (b *boundStore) LastFetch(ctx context.Context, key string) (f crawlstore.Fetch, ok bool, err error) {
	err = b.call(ctx, func(ctx context.Context) error { f, ok, err = b.s.LastFetch(ctx, key); return err })
	return f, ok, err
}

func (b *boundStore) Enqueue(ctx context.Context, entries []crawlstore.Entry, rq crawlstore.Requeue) (st []crawlstore.State, err error) {
	err = b.call(ctx, func(ctx context.Context) error { st, err = b.s.Enqueue(ctx, entries, rq); return err })
	return st, err
}

func (b *boundStore) Content(ctx context.Context, key string) (body []byte, ok bool, err error) {
	err = b.call(ctx, func(ctx context.Context) error { body, ok, err = b.s.Content(ctx, key); return err })
	return body, ok, err
}

func (b *boundStore) SavePage(ctx context.Context, p *crawlstore.Page) (res crawlstore.SaveResult, err error) {
	err = b.call(ctx, func(ctx context.Context) error { res, err = b.s.SavePage(ctx, p); return err })
	return res, err
}
