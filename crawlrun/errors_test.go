package crawlrun

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/webtable/webtable/crawler"
)

// TestEnded: the error a run ends with says why, by kind, and still
// wraps the crawler's error.
func TestEnded(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	storeErr := fmt.Errorf("%w: disk full", crawler.ErrStore)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want Kind
	}{
		{"refused config", live, &SetupError{Err: crawler.ErrConfig}, Usage},
		{"bad seed", live, fmt.Errorf("%w: ftp://x", crawler.ErrSeed), Usage},
		{"bad seed after Ctrl-C", cancelled, fmt.Errorf("%w: ftp://x", crawler.ErrSeed), Usage},
		{"Ctrl-C", cancelled, context.Canceled, Interrupted},
		{"store failed", live, storeErr, StoreFailed},
		{"store failed after Ctrl-C", cancelled, storeErr, StoreFailed},
		{"anything else", live, errors.New("boom"), StoreFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ended(tc.ctx, tc.err)
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.want || !errors.Is(err, tc.err) {
				t.Fatalf("ended(%v) = %#v, want an *Error of kind %d wrapping it", tc.err, err, tc.want)
			}
		})
	}
	if err := ended(live, nil); err != nil {
		t.Errorf("ended(nil) = %v, want nil", err)
	}
}
