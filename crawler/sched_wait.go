package crawler

import (
	"context"
	"time"
)

// waiter is how pop and acquire sleep between looks at the scheduler: until
// it changes, or a deadline passes, reusing one timer across the loop.
type waiter struct{ timer *time.Timer }

// wait blocks until changed is closed or receives, d has passed (d <= 0:
// no deadline), ctx is done or stop is closed (nil: never). It returns
// ctx's error or errStopped for the last two, nil otherwise.
func (w *waiter) wait(ctx context.Context, stop <-chan struct{}, changed <-chan struct{}, d time.Duration) error {
	var tc <-chan time.Time
	if d > 0 {
		if w.timer == nil {
			w.timer = time.NewTimer(d)
		} else {
			w.timer.Reset(d)
		}
		tc = w.timer.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-stop:
		return errStopped
	case <-changed:
	case <-tc:
	}
	return nil
}

// stop releases the timer.
func (w *waiter) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}
