//go:build race

package bigtable

// raceEnabled: the race detector is on, and sync.Pool drops a quarter of
// what it is given, so pooled readers are sometimes made anew.
const raceEnabled = true
