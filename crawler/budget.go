package crawler

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Budget caps the fetches of a crawl at N per Per (--budget N/DUR, for
// example 10000/1h), spent by a token bucket of N tokens: a crawl may
// fetch N pages at once, then N per Per; over any time T it fetches at
// most N + N*T/Per pages. The zero Budget is no cap.
type Budget struct {
	N   int
	Per time.Duration
}

// ParseBudget reads a budget written N/DUR: "10000/1h", "50/1m", "1/2s".
// "" is no budget.
func ParseBudget(s string) (Budget, error) {
	if s == "" {
		return Budget{}, nil
	}
	n, per, ok := strings.Cut(s, "/")
	if !ok {
		return Budget{}, fmt.Errorf("crawler: budget %q: want fetches/duration, for example 10000/1h", s)
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 {
		return Budget{}, fmt.Errorf("crawler: budget %q: %q is not a number of fetches of at least 1", s, n)
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return Budget{}, fmt.Errorf("crawler: budget %q: %q is not a positive duration (1h, 30m, 10s)", s, per)
	}
	return Budget{N: count, Per: d}, nil
}

// String returns the budget as ParseBudget reads it; "" for none.
func (b Budget) String() string {
	if b.N <= 0 {
		return ""
	}
	return strconv.Itoa(b.N) + "/" + b.Per.String()
}

// rate is the budget in fetches per second; 0 for none.
func (b Budget) rate() float64 {
	if b.N <= 0 || b.Per <= 0 {
		return 0
	}
	return float64(b.N) / b.Per.Seconds()
}

// tokenBucket spends a Budget: it holds up to N tokens, refilled at N per
// Per, one spent per fetch; a fetch with none waits for the next. It
// starts full. The bucket lives as long as the Crawler: the rounds of a
// continuous crawl share it.
type tokenBucket struct {
	clock  Clock
	mu     sync.Mutex
	rate   float64 // tokens per second
	size   float64
	tokens float64
	last   time.Time
}

// newTokenBucket returns the bucket of b, nil for no budget.
func newTokenBucket(b Budget, clock Clock) *tokenBucket {
	if b.N <= 0 {
		return nil
	}
	return &tokenBucket{clock: clock, rate: b.rate(), size: float64(b.N), tokens: float64(b.N), last: clock.Now()}
}

// take spends one token, waiting (on the clock) until there is one; it
// returns ctx's error when ctx ends first. A nil bucket never waits.
func (t *tokenBucket) take(ctx context.Context) error {
	if t == nil {
		return nil
	}
	for {
		wait := t.try()
		if wait <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.clock.After(wait):
		}
	}
}

// try spends a token if there is one (0), or returns how long until there
// is.
func (t *tokenBucket) try() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	if d := now.Sub(t.last); d > 0 {
		t.tokens = min(t.size, t.tokens+d.Seconds()*t.rate)
		t.last = now
	}
	if t.tokens >= 1 {
		t.tokens--
		return 0
	}
	// NB: rounded up to the millisecond, so that the wait is never a hair
	// short of the token and woken for nothing.
	return time.Duration(math.Ceil((1-t.tokens)/t.rate*1000)) * time.Millisecond
}
