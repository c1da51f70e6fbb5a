package shardrun

import "testing"

// TestLeftQueued: a round that took nothing holds what it left queued only
// when the count did not move while it ran.
func TestLeftQueued(t *testing.T) {
	for _, tc := range []struct {
		before, after, want int64
	}{
		{0, 0, 0},
		{3, 3, 3},
		{0, 1, -1}, // queued by another shard during the round: maybe unseen
		{2, 1, -1}, // a stale entry dropped: something may have come too
	} {
		if got := leftQueued(tc.before, tc.after); got != tc.want {
			t.Errorf("leftQueued(%d, %d) = %d, want %d", tc.before, tc.after, got, tc.want)
		}
	}
}
