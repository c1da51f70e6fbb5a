package crawler

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// manualClock is a Clock the test moves: After fires once the clock has
// been moved past its time.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []manualWaiter
	waiting chan struct{} // told of each After, when set
}

type manualWaiter struct {
	at time.Time
	ch chan time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, manualWaiter{c.now.Add(d), ch})
	if c.waiting != nil {
		c.waiting <- struct{}{}
	}
	return ch
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// TestTokenBucket: a budget of 3/1h lets 3 fetches through at once, then
// one each 20 minutes; a fetch waiting for a token ends with its context.
func TestTokenBucket(t *testing.T) {
	clock := &manualClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), waiting: make(chan struct{}, 1)}
	b := newTokenBucket(Budget{N: 3, Per: time.Hour}, clock)
	for i := range 3 {
		if d := b.try(); d != 0 {
			t.Fatalf("fetch %d of a full bucket waits %v, want none", i+1, d)
		}
	}
	if d := b.try(); d != 20*time.Minute {
		t.Errorf("fetch 4 waits %v, want 20m", d)
	}
	clock.advance(19 * time.Minute)
	if d := b.try(); d != time.Minute {
		t.Errorf("19m later, fetch 4 waits %v, want 1m", d)
	}
	took := make(chan error, 1)
	go func() { took <- b.take(context.Background()) }()
	select {
	case <-clock.waiting:
	case err := <-took:
		t.Fatalf("take returned %v without waiting for a token", err)
	}
	clock.advance(time.Minute)
	if err := <-took; err != nil {
		t.Errorf("take after the token came = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.take(ctx); err == nil {
		t.Errorf("take on an empty bucket with a cancelled context = nil, want its error")
	}
	if (*tokenBucket)(nil).take(ctx) != nil {
		t.Errorf("no budget waited")
	}
}

// TestParseBudget reads N/DUR and refuses anything else.
func TestParseBudget(t *testing.T) {
	good := map[string]Budget{"10000/1h": {10000, time.Hour}, "1/2s": {1, 2 * time.Second}, "": {}}
	for in, want := range good {
		if got, err := ParseBudget(in); err != nil || got != want {
			t.Errorf("ParseBudget(%q) = %v, %v; want %v", in, got, err, want)
		}
		if got, _ := ParseBudget(want.String()); got != want {
			t.Errorf("ParseBudget(%q) = %v, want %v", want.String(), got, want)
		}
	}
	for _, in := range []string{"10000", "0/1h", "-1/1h", "10/0s", "10/-1h", "x/1h", "10/1 hour"} {
		if got, err := ParseBudget(in); err == nil {
			t.Errorf("ParseBudget(%q) = %v, want an error", in, got)
		}
	}
}

// FuzzParseBudget: what parses prints back to itself.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"10000/1h", "1/2s", "", "5/1m30s", "x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBudget(s)
		if err != nil {
			return
		}
		if b.N > 0 && (b.Per <= 0 || b.rate() <= 0) {
			t.Errorf("ParseBudget(%q) = %v: not a positive rate", s, b)
		}
		if again, err := ParseBudget(b.String()); err != nil || again != b {
			t.Errorf("ParseBudget(%q) = %v, %v; want %v", b.String(), again, err, b)
		}
	})
}

// TestDueChange: what a fetch makes of a page's change history and due
// time, from the fetch before it.
func TestDueChange(t *testing.T) {
	d := &duePolicy{min: time.Hour, max: 100 * time.Hour, pages: map[string]float64{}}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	last := crawlstore.Fetch{Time: t0, SHA256: "old", State: crawlstore.StateDone,
		Change: crawlstore.Change{Visits: 1, Changes: 0, Span: 2 * time.Hour, Rate: 0, Due: t0.Add(100 * time.Hour)}}
	page := func(at time.Duration, sum string, notModified bool, failed bool) *crawlstore.Page {
		p := &crawlstore.Page{Key: "k", Time: t0.Add(at), SHA256: sum, NotModified: notModified}
		if failed {
			p.Err = "boom"
		}
		return p
	}
	for _, tc := range []struct {
		name string
		p    *crawlstore.Page
		last crawlstore.Fetch
		ok   bool
		want crawlstore.Change
	}{
		{"first fetch", page(0, "new", false, false), crawlstore.Fetch{}, false, crawlstore.Change{Rate: -1, Due: t0.Add(time.Hour)}},
		{"unchanged", page(2*time.Hour, "old", false, false), last, true, crawlstore.Change{Visits: 2, Span: 4 * time.Hour, Shortest: 2 * time.Hour, Rate: 0, Due: t0.Add(102 * time.Hour)}},
		{"304", page(2*time.Hour, "", true, false), last, true, crawlstore.Change{Visits: 2, Span: 4 * time.Hour, Shortest: 2 * time.Hour, Rate: 0, Due: t0.Add(102 * time.Hour)}},
		{"changed", page(2*time.Hour, "new", false, false), last, true, crawlstore.Change{Visits: 2, Changes: 1, Span: 4 * time.Hour, Shortest: 2 * time.Hour, Rate: ChangeEstimate{Visits: 2, Changes: 1, Span: 4 * time.Hour}.mustRate(), Due: t0.Add(3 * time.Hour)}},
		{"clock gone back", page(-time.Hour, "new", false, false), last, true, crawlstore.Change{Rate: -1, Due: t0.Add(0)}},
		{"failed", page(time.Hour, "", false, true), last, true, crawlstore.Change{Visits: 1, Span: 2 * time.Hour, Rate: 0, Due: t0.Add(2 * time.Hour)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := d.change(tc.p, tc.last, tc.ok); got != tc.want {
				t.Errorf("change = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// mustRate is Rate(1) for a test's estimate that has one.
func (e ChangeEstimate) mustRate() float64 {
	r, ok := e.Rate(1)
	if !ok {
		panic("no rate")
	}
	return r
}
